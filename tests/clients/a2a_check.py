"""Every golden A2A render, and every task without a result (working, canceled), against the
official A2A SDK (PyPI a2a-sdk): each 1.0 task parses with ParseDict into a2a.types.Task (unknown
fields refused), each 0.3 task validates with the SDK's 0.3 models without dropping or changing a
key, and the SDK's 0.3 -> 1.0 conversion of each 0.3 task equals the 1.0 task toolwire renders
for the same result.

Usage: a2a_check.py <snapshot directory>
"""

import json
import math
import pathlib
import sys

from google.protobuf.json_format import MessageToDict, ParseDict
from a2a.compat.v0_3 import conversions
from a2a.compat.v0_3 import types as types_v03
from a2a.types import Task


def entries(path):
    """{sample: JSON text} of one per-target golden snapshot: after insta's header, each entry is
    a `## <sample>` line (a note may follow the name after a comma) and the pretty JSON."""
    body = path.read_text().split("---\n", 2)[2]
    found, sample = {}, None
    for line in body.splitlines():
        if line.startswith("## "):
            sample = line[3:].split(",")[0]
            found[sample] = []
        elif sample is not None:
            found[sample].append(line)
    return {name: "\n".join(lines) for name, lines in found.items()}


# The snapshots of A2A renders: the golden results, and the tasks without a result (working,
# canceled).
SNAPSHOTS = ("golden", "golden_a2a_states")


def renders(directory):
    """(snapshot/sample, {"a2a-0.3": doc, "a2a-1.0": doc}) for every sample of the snapshots."""
    directory = pathlib.Path(directory)
    for snapshot in SNAPSHOTS:
        v03 = entries(directory / f"{snapshot}__a2a-0.3.snap")
        v10 = entries(directory / f"{snapshot}__a2a-1.0.snap")
        if v03.keys() != v10.keys():
            differ = sorted(v03.keys() ^ v10.keys())
            sys.exit(f"the {snapshot} A2A snapshots hold different samples: {differ}")
        for sample in sorted(v03):
            yield f"{snapshot}/{sample}", {"a2a-0.3": v03[sample], "a2a-1.0": v10[sample]}


def finite(value):
    """Whether every number in value fits a double (proto Value holds nothing else)."""
    if isinstance(value, float):
        return math.isfinite(value)
    if isinstance(value, int) and not isinstance(value, bool):
        return abs(value) <= 2**53
    if isinstance(value, dict):
        return all(finite(v) for v in value.values())
    if isinstance(value, list):
        return all(finite(v) for v in value)
    return True


def same_numbers(a, b):
    """Equality where 42 and 42.0 are the same number (proto Value stores doubles)."""
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same_numbers(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same_numbers(x, y) for x, y in zip(a, b))
    if isinstance(a, (int, float)) and isinstance(b, (int, float)) and not isinstance(a, bool):
        return float(a) == float(b)
    return a == b


def comparable(task):
    """The task with the two differences that are not the conversion's to make removed:
    `<p>/responseSize` (an offload stub's size of the render that did not fit, which differs
    per target by definition), and the MIME type of a text part, which 0.3 has no slot for:
    toolwire keeps it as part metadata `<p>/mimeType` there and the SDK does not lift it into
    1.0's `mediaType`."""
    task = json.loads(json.dumps(task))
    for holder in [task] + task.get("artifacts", []):
        holder.get("metadata", {}).pop("dev.toolwire/responseSize", None)
    for artifact in task.get("artifacts", []):
        for part in artifact.get("parts", []):
            meta = part.get("metadata", {})
            if "text" in part and "dev.toolwire/mimeType" in meta:
                part["mediaType"] = meta.pop("dev.toolwire/mimeType")
                if not meta:
                    part.pop("metadata")
    return task


def main():
    failures = []
    checked = skipped = 0
    for sample, found in renders(sys.argv[1]):
        v10 = json.loads(found["a2a-1.0"])
        v03 = json.loads(found["a2a-0.3"])
        if not (finite(v10) and finite(v03)):
            # Numbers beyond a double (the lossless-numbers sample) cannot live in proto Value.
            skipped += 1
            continue
        checked += 1
        try:
            ParseDict(v10, Task(), ignore_unknown_fields=False)
        except Exception as error:  # noqa: BLE001 - report every sample
            failures.append(f"{sample}: 1.0 does not parse into a2a.types.Task: {error}")
        try:
            task03 = types_v03.Task.model_validate(v03)
        except Exception as error:  # noqa: BLE001
            failures.append(f"{sample}: 0.3 does not validate: {error}")
            continue
        dumped = task03.model_dump(mode="json", by_alias=True, exclude_none=True)
        if dumped != v03:
            failures.append(f"{sample}: 0.3 keys dropped or changed:\n  {v03}\n  {dumped}")
        converted = MessageToDict(conversions.to_core_task(task03))
        if not same_numbers(comparable(converted), comparable(v10)):
            failures.append(
                f"{sample}: the SDK's 0.3 -> 1.0 conversion differs:\n  {converted}\n  {v10}"
            )
    for failure in failures:
        print(failure, file=sys.stderr)
    print(f"a2a-sdk: {checked} golden samples checked, {skipped} skipped, {len(failures)} failures")
    sys.exit(1 if failures or checked == 0 else 0)


main()
