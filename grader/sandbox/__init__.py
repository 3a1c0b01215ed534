"""The sandbox wing: student code run in workers under limits, apart from the grading process.

Its face is below; code outside the wing imports only these names. `worker.py`, `worker_trace.py`,
`wire.py` and `reaper.py` run as scripts of their own and import only the standard library.
"""

from grader.faces import lazy_exports

EXPORTS = {
    "Sandbox": "service",
    "SandboxSettings": "process",
    "IMPORT_TIMEOUT": "process",
    "CPU_SLACK": "process",
    "SandboxError": "isolation",
    "CpuLease": "isolation",
    "sweep_workers": "isolation",
    "CpuTime": "cpu_accounting",
    "cpu_time": "cpu_accounting",
    "linux_mechanisms": "reaper",
    "become_subreaper": "reaper",
    "open_sandbox": "opening",
    "protect_secrets": "opening",
    "reaper_command": "reaper",
    "Launcher": "launcher",
    "Launch": "launcher",
    "LauncherEnded": "launcher",
    "sandbox_settings": "opening",
    # The messages both ends of a worker's pipes speak: a contract of its own, exported whole.
    "wire": "wire",
}
__all__ = sorted(EXPORTS)
__getattr__ = lazy_exports(__name__, EXPORTS)
