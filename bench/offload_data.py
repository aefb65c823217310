"""The scripted outputs of bench/offload.py: five large tool results with one question each, and two 10 MB outputs."""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from dataclasses import dataclass

SEED = 7


def server_log(rng: random.Random) -> tuple[str, list[int]]:
    lines, failed = [], []
    for request in range(1, 7_001):
        if rng.random() < 0.002:
            failed.append(request)
            lines.append(f"2025-03-02T10:{request % 60:02d}:11Z ERROR req={request} upstream timeout after 30000 ms")
        else:
            took = rng.randint(3, 900)
            lines.append(f"2025-03-02T10:{request % 60:02d}:11Z INFO req={request} GET /api/v2/items 200 {took} ms")
    return "\n".join(lines) + "\n", failed


def issues_listing(rng: random.Random) -> tuple[dict[str, object], tuple[int, list[int]]]:
    labels = ["bug", "feature", "docs", "question", "infra", "ui"]
    words = ["crash", "slow", "login", "export", "typo"]
    issues = [
        {
            "id": number,
            "title": f"Issue {number}: " + " ".join(rng.choice(words) for _ in range(5)),
            "state": rng.choice(["open", "closed", "closed"]),
            "labels": rng.sample(labels, rng.randint(0, 2)),
            "created_at": f"2025-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}T{rng.randint(0, 23):02d}:00:00Z",
            "author": {"login": f"user{rng.randint(1, 400)}", "site_admin": False},
            "body": "Steps to reproduce: "
            + " ".join(rng.choice(["open", "click", "wait", "see error"]) for _ in range(20)),
        }
        for number in range(1, 2_501)
    ]
    open_bugs = [issue for issue in issues if issue["state"] == "open" and "bug" in issue["labels"]]
    newest = [issue["id"] for issue in sorted(open_bugs, key=lambda issue: issue["created_at"], reverse=True)[:3]]
    return {"total_count": len(issues), "issues": issues}, (len(open_bugs), newest)


def source_file(rng: random.Random) -> tuple[str, str]:
    chunks = [
        f"def helper_{index}(value: int) -> int:\n"
        f'    """Helper number {index}."""\n'
        f"    total = value * {rng.randint(2, 99)}\n"
        f"    for step in range({rng.randint(2, 9)}):\n"
        f"        total += step\n"
        f"    return total\n\n\n"
        for index in range(900)
    ]
    target = (
        "def parse_header(raw: bytes) -> tuple[str, str]:\n"
        '    """Split one HTTP header line into its name and value."""\n'
        '    name, _, value = raw.decode("latin-1").partition(":")\n'
        "    return name.strip().lower(), value.strip()\n\n\n"
    )
    chunks.insert(611, target)
    return "".join(chunks), "return name.strip().lower(), value.strip()"


def page_snapshot(rng: random.Random) -> tuple[str, str]:
    rows = []
    for ref in range(1, 6_001):
        kind = rng.choice(["link", "text", "img", "listitem", "cell"])
        rows.append(f'  - {kind} "Item {ref} {rng.choice(["Home", "News", "Shop", "Help"])}" [ref=e{ref}]')
    rows.insert(4_321, '  - button "Sign in" [ref=e90210]')
    return "- document:\n" + "\n".join(rows) + "\n", "e90210"


def csv_export(rng: random.Random) -> tuple[str, str]:
    rows = ["id,name,email,country,balance"]
    target = ""
    for customer in range(10_000, 40_000):
        email = f"customer{customer}@example.{rng.choice(['com', 'org', 'net'])}"
        rows.append(
            f"{customer},Customer {customer},{email},{rng.choice(['DE', 'FR', 'US', 'JP'])},{rng.randint(0, 99999)}"
        )
        if customer == 28_213:
            target = email
    return "\n".join(rows) + "\n", target


@dataclass(frozen=True, slots=True, kw_only=True)
class Task:
    tool: str
    question: str
    output: object
    calls: Callable[[str], list[tuple[str, dict[str, object]]]]
    answered: Callable[[list[object]], bool]


def tasks() -> list[Task]:
    rng = random.Random(SEED)
    log, failed = server_log(rng)
    listing, (bug_count, newest) = issues_listing(rng)
    source, body = source_file(rng)
    snapshot, ref = page_snapshot(rng)
    table, email = csv_export(rng)
    bug_filter = '[.issues[] | select(.state == "open" and (.labels | index("bug")))]'
    return [
        Task(
            tool="logs__tail",
            question="Which requests failed?",
            output=log,
            calls=lambda h: [
                ("output_search", {"handle": h, "pattern": "ERROR", "case_sensitive": True, "context": 0})
            ],
            answered=lambda a: all(f"req={n} " in json.dumps(a) for n in failed),
        ),
        Task(
            tool="github__list_issues",
            question="How many open bugs, and which three are newest?",
            output=listing,
            calls=lambda h: [
                ("output_query", {"handle": h, "expression": f"{bug_filter} | length"}),
                (
                    "output_query",
                    {"handle": h, "expression": f"{bug_filter} | sort_by(.created_at) | reverse | .[:3] | map(.id)"},
                ),
            ],
            answered=lambda a: a[0]["results"] == [bug_count] and a[1]["results"] == [newest],  # type: ignore[index]
        ),
        Task(
            tool="fs__read_text_file",
            question="What does parse_header return?",
            output=source,
            calls=lambda h: [
                ("output_search", {"handle": h, "pattern": "def parse_header", "context": 0}),
                ("output_read", {"handle": h, "start_line": "FROM_SEARCH", "lines": 5}),
            ],
            answered=lambda a: body in a[1]["text"],  # type: ignore[index]
        ),
        Task(
            tool="browser__snapshot",
            question="Which ref is the Sign in button?",
            output=snapshot,
            calls=lambda h: [("output_search", {"handle": h, "pattern": 'button "Sign in"'})],
            answered=lambda a: ref in json.dumps(a),
        ),
        Task(
            tool="db__export_csv",
            question="What is the email of customer 28213?",
            output=table,
            calls=lambda h: [("output_search", {"handle": h, "pattern": "^28213,", "regex": True, "context": 0})],
            answered=lambda a: email in json.dumps(a),
        ),
    ]


def big_outputs() -> tuple[str, str]:
    rng = random.Random(SEED)
    lines = []
    size = 0
    request = 0
    while size < 10_000_000:
        request += 1
        level = "ERROR" if request % 9_973 == 0 else "INFO"
        path = f"/api/v2/items/{rng.randint(1, 10**6)}"
        stamp = f"2025-03-02T10:{request % 60:02d}:{request % 59:02d}Z"
        line = f"{stamp} {level} req={request} path={path} took={rng.randint(1, 999)}ms"
        lines.append(line)
        size += len(line) + 1
    text = "\n".join(lines) + "\n"
    items = []
    size = 0
    while size < 10_000_000:
        item = {
            "id": len(items),
            "state": rng.choice(["open", "closed"]),
            "score": rng.randint(0, 1000),
            "tags": rng.sample(["a", "b", "c", "d"], 2),
            "note": "x" * rng.randint(10, 120),
        }
        items.append(item)
        size += len(json.dumps(item)) + 2
    return text, json.dumps({"items": items})
