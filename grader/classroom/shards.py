"""`grade batch --shard K/N` and `grade batch merge`: a class graded in slices, and the slices put together.

Any engine that runs N copies of one command can then grade a class: a CI matrix, a Kubernetes
Indexed Job, a Slurm array. A student's shard comes from a hash of their name, not from their place
in the folder, so a student keeps their shard when others join or leave the class (the shards are
then only roughly equal in size). Each shard folder carries a manifest, `shard.json`, that says what
was graded and how; the merge refuses shards that do not fit together.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from dataclasses import dataclass
from pathlib import Path

from grader import __version__
from grader.catalog import Exercise, KitError
from grader.classroom.folder import ClassFolder, inputs_path
from grader.classroom.similarity import merge_comparisons, write_similarity
from grader.report import ReportError, read_report

MANIFEST = "shard.json"
MANIFEST_VERSION = 1


@dataclass(frozen=True)
class Shard:
    """Slice `index` (from 1) of `count`."""

    index: int
    count: int

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"


def parse_shard(text: str) -> Shard:
    """`K/N` with 1 <= K <= N; anything else is a ValueError that says what was expected."""
    parts = text.split("/")
    if len(parts) != 2 or not all(part.isdigit() for part in parts):
        raise ValueError(f"expected K/N, such as 2/3, got {text!r}")
    index, count = int(parts[0]), int(parts[1])
    if not 1 <= index <= count:
        raise ValueError(f"K must run from 1 to N, got {text!r}")
    return Shard(index, count)


def shard_of(name: str, count: int) -> int:
    """The shard (from 1) a student belongs to among `count`: it depends on the name alone."""
    digest = hashlib.sha256(name.encode("utf-8")).digest()
    return 1 + int.from_bytes(digest[:8], "big") % count


def roster_digest(names: list[str]) -> str:
    """A fingerprint of the whole class, so that shards cut from different class folders do not merge."""
    return hashlib.sha256("\n".join(sorted(names)).encode("utf-8")).hexdigest()


def checks_digest(exercises: list[Exercise]) -> str:
    """A fingerprint of the graded exercises' checks and settings: every shard must grade with the same ones."""
    return hashlib.sha256("\n".join(f"{e.id} {e.fingerprint()}" for e in exercises).encode()).hexdigest()


def write_manifest(out: Path, shard: Shard, graded: list[str], roster: list[str], exercises: list[Exercise],
                   seed: int | None) -> None:
    """shard.json: which slice this is, of what class, graded how, and the students it holds."""
    manifest = {
        "format_version": MANIFEST_VERSION, "shard": shard.index, "of": shard.count,
        "exercises": [exercise.id for exercise in exercises], "seed": seed, "kit_version": __version__,
        "checks": checks_digest(exercises), "class_size": len(roster), "class": roster_digest(roster),
        "students": sorted(graded),
    }
    (out / MANIFEST).write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")


# The manifest's fields the merge relies on, and what each must be.
MANIFEST_FIELDS = {"shard": int, "of": int, "class_size": int, "exercises": list, "students": list,
                   "class": str, "checks": str, "kit_version": str}
MANIFEST_WORDS = {int: "a whole number", list: "a list", str: "a string"}


def _read_manifest(folder: Path) -> dict:
    path = folder / MANIFEST
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise KitError(f"{folder}: not a shard (no {MANIFEST}; grade it with grade batch ... --shard K/N)") from None
    except (OSError, ValueError) as exc:
        raise KitError(f"{path}: unreadable: {exc}") from None
    if not isinstance(manifest, dict) or manifest.get("format_version") != MANIFEST_VERSION:
        raise KitError(f"{path}: not a shard manifest of format_version {MANIFEST_VERSION}")
    for field, kind in MANIFEST_FIELDS.items():
        if not isinstance(manifest.get(field), kind) or isinstance(manifest.get(field), bool):
            raise KitError(f"{path}: field {field!r} must be {MANIFEST_WORDS[kind]}, got {manifest.get(field)!r}")
    if not 1 <= manifest["shard"] <= manifest["of"] or not all(isinstance(name, str) for name in manifest["students"]):
        raise KitError(f"{path}: shard {manifest['shard']} of {manifest['of']}, or its students, cannot be right")
    return manifest


# What every shard of one class must agree on, and how a disagreement is worded.
MUST_MATCH = {"of": "number of shards", "exercises": "exercises", "seed": "seed", "kit_version": "kit version",
              "checks": "checks", "class": "class (its students)"}


def check_shards(folders: list[Path]) -> list[tuple[Path, dict]]:
    """Every shard's manifest, in shard order, once they are known to fit together; else a one-line KitError."""
    manifests = [(folder, _read_manifest(folder)) for folder in folders]
    first_folder, first = manifests[0]
    for folder, manifest in manifests[1:]:
        for field, words in MUST_MATCH.items():
            if manifest.get(field) != first.get(field):
                raise KitError(f"mismatched shards: {folder} and {first_folder} differ in {words} "
                               f"({manifest.get(field)!r} against {first.get(field)!r})")
    seen: dict[int, Path] = {}
    for folder, manifest in manifests:
        if manifest["shard"] in seen:
            raise KitError(f"overlapping shards: {seen[manifest['shard']]} and {folder} are both shard "
                           f"{manifest['shard']}/{manifest['of']}")
        seen[manifest["shard"]] = folder
    owners: dict[str, Path] = {}
    for folder, manifest in manifests:
        for student in manifest["students"]:
            if student in owners:
                raise KitError(f"overlapping shards: {owners[student]} and {folder} both hold {student}")
            owners[student] = folder
    count = first["of"]
    missing = sorted(set(range(1, count + 1)) - set(seen))
    if missing:
        raise KitError(f"missing shards: {', '.join(f'{index}/{count}' for index in missing)} "
                       f"(the merge needs all {count})")
    if len(owners) != first["class_size"]:
        raise KitError(f"missing students: the shards hold {len(owners)} of the class's {first['class_size']}")
    return sorted(manifests, key=lambda pair: pair[1]["shard"])


def merge_shards(folders: list[Path], out: Path) -> tuple[dict[str, dict[str, dict]], list[str]]:
    """Copy every shard's reports into `out`; returns {student: {exercise id: report}} and the exercise ids."""
    if not folders:
        raise KitError("grade batch merge OUT SHARD_DIRS...: give the shard folders to merge")
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise KitError(f"{out}: the merge goes into a new or empty folder")
    shards = check_shards(folders)
    for folder, _ in shards:  # an earlier kit's slice would look as if it had lost every report
        ClassFolder(folder).refuse_earlier_layout()
    exercise_ids = shards[0][1]["exercises"]
    results: dict[str, dict[str, dict]] = {}
    copies = []
    for folder, manifest in shards:
        for student in manifest["students"]:
            for exercise_id in exercise_ids:
                source = ClassFolder(folder).report(student, exercise_id)
                try:
                    report = read_report(source)
                except ReportError:
                    raise KitError(f"{source}: missing or unreadable, so shard {manifest['shard']}/"
                                   f"{manifest['of']} is incomplete") from None
                results.setdefault(student, {})[exercise_id] = report
                target = ClassFolder(out).report(student, exercise_id)
                copies.append((source, target))
                record = inputs_path(source)  # so a batch run later into the merged folder can reuse the report
                if record.is_file():
                    copies.append((record, inputs_path(target)))
    # Each shard compared its own students and kept their tokenised modules: the whole class is
    # compared from those, as one batch compares it. Shards an earlier kit wrote each compared the
    # whole class folder, so the first one's comparison is the class's.
    similar = merge_comparisons(shards, exercise_ids)
    first, merged = ClassFolder(shards[0][0]), ClassFolder(out)
    if similar is None:
        copies += [(source, target) for source, target in ((first.similar_table, merged.similar_table),
                                                           (first.similarity_record, merged.similarity_record))
                   if source.is_file()]
    for source, target in copies:  # only once every shard was read: a refused merge writes nothing
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, target)
    if similar is not None:
        write_similarity(similar, out)
    return results, exercise_ids
