"""Debian's headless Chromium for the tests that open the kit's pages as a person would, offline."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

import pytest

CHROMIUM, CHROMEDRIVER = Path("/usr/bin/chromium"), Path("/usr/bin/chromedriver")


@contextlib.contextmanager
def headless_chromium(monkeypatch):
    """A selenium driver on the system's chromium and chromedriver (never a download); skips without them."""
    if not (CHROMIUM.is_file() and CHROMEDRIVER.is_file()):
        pytest.skip(f"Debian's chromium and chromium-driver are not installed ({CHROMIUM}, {CHROMEDRIVER}); "
                    "apt-get install chromium chromium-driver, as .ci/run does")
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.selenium_manager import SeleniumManager

    def no_downloads(*_args, **_kwargs):
        raise AssertionError("selenium-manager ran: the test must use the system's chromedriver")

    monkeypatch.setattr(SeleniumManager, "binary_paths", no_downloads)
    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for argument in ("--headless=new", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1280,1000"):
        options.add_argument(argument)
    if os.geteuid() == 0:
        options.add_argument("--no-sandbox")  # Chromium refuses to start as root with its own sandbox on
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(executable_path=str(CHROMEDRIVER)), options=options)
    try:
        yield driver
    finally:
        driver.quit()


def severe_console_errors(driver) -> list:
    """The page's console errors, as the browser logged them."""
    return [entry for entry in driver.get_log("browser") if entry["level"] == "SEVERE"]
