"""Sign-in to the first page: how long a member waits between "Sign in" and the chat.

A fresh ``streamlit run app.py`` (nothing loaded yet, as after a deploy or a restart)
with local users, the three sample analyses and the embedded llama.cpp model, in real
headless Chromium: the sign-in page is opened, the member takes ``--typing`` seconds to
type, signs in, and the time until the chat's input is drawn is measured; then the time
from the first question's confirmed analysis to its complete answer (SmolLM2, 24 tokens). Each run starts a new server; ``--load N`` runs N
busy processes beside it (other work on the cores, as an ingestion would be).

Prints JSON: per condition (idle, loaded) the runs, the median and a bootstrap 95 %
interval of the median, and the machine's load average when it started.

    python benchmarks/sign_in.py [--runs 3] [--typing 5] [--load 2]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from benchmarks.intervals import median_ci  # noqa: E402
from tests.conftest import CHAT_LLM, app_environment, closed_port  # noqa: E402
from tests.fixtures.browser import CHROME_FLAGS, serve_app  # noqa: E402
from tests.fixtures.samples import ANALYSES, write_jsonl  # noqa: E402

USER, PASSWORD = "bench", "sign-in-benchmark-4711"
QUESTION = "What is the dominant background in the dimuon Higgs search?"


def build(root: Path) -> Path:
    """The sample analyses indexed, and one local user."""
    from ingest.sources.jsonl import index_jsonl
    from mitra.access.users import open_users
    from mitra.core.settings import Settings
    from mitra.retrieval.pipeline import build_pipeline

    settings = Settings(data_dir=root / "kb", reranker="none")
    index_jsonl(build_pipeline(settings, with_reranker=False).kb, write_jsonl(root / "sample.jsonl", ANALYSES))
    open_users(settings).add(USER, PASSWORD, ["higgs"])
    return root / "kb"


@contextmanager
def busy(processes: int):
    """``processes`` busy loops on the cores while the block runs."""
    loops = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(processes)]
    try:
        yield
    finally:
        for loop in loops:
            loop.kill()
            loop.wait()


def driver():
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for flag in CHROME_FLAGS:
        options.add_argument(flag)
    return webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)


def wait(browser, css: str, timeout: float = 600):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(browser, timeout, poll_frequency=0.1).until(
        lambda d: [e for e in d.find_elements(By.CSS_SELECTOR, css) if e.is_displayed()])


def one_run(data_dir: Path, log_dir: Path, typing_s: float) -> dict:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    env = app_environment(data_dir, auth="local", **CHAT_LLM)
    browser = driver()
    try:
        with serve_app(env, log_dir, port=closed_port()) as url:
            start = time.monotonic()
            browser.get(url)
            fields = wait(browser, "[data-testid=stTextInput] input")
            form_s = time.monotonic() - start
            time.sleep(typing_s)
            fields[0].send_keys(USER)
            fields[1].send_keys(PASSWORD)
            browser.find_element(By.CSS_SELECTOR, "[data-testid=stFormSubmitButton] button").click()
            signed = time.monotonic()
            box = wait(browser, "[data-testid=stChatInputTextArea]")
            first_page_s = time.monotonic() - signed
            box[0].send_keys(QUESTION, Keys.ENTER)
            wait(browser, "[class*='st-key-pick-'] button")[0].click()
            asked = time.monotonic()
            wait(browser, "[data-testid=stFeedback]")  # drawn under an answer once it is complete
            return {"sign_in_page_s": round(form_s, 1), "first_page_s": round(first_page_s, 1),
                    "first_answer_s": round(time.monotonic() - asked, 1)}
    finally:
        browser.quit()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--typing", type=float, default=5.0, help="seconds between the sign-in page and 'Sign in'")
    parser.add_argument("--load", type=int, default=2, help="busy processes in the loaded condition")
    args = parser.parse_args()
    report = {}
    with tempfile.TemporaryDirectory(prefix="mitra-sign-in-") as scratch:
        data_dir = build(Path(scratch))
        for condition, processes in (("idle", 0), (f"{args.load} busy processes", args.load)):
            load = os.getloadavg()[0]
            with busy(processes):
                runs = [one_run(data_dir, Path(scratch), args.typing) for _ in range(args.runs)]
            report[condition] = {
                "load_average_before": round(load, 1), "runs": runs,
                **{key: {"median": float(np.median([r[key] for r in runs])), "ci95": median_ci([r[key] for r in runs])}
                   for key in runs[0]},
            }
    print(json.dumps({"typing_s": args.typing, "cores": os.cpu_count(), **report}, indent=2))


if __name__ == "__main__":
    main()
