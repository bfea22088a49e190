"""The vega-datasets files the accuracy scripts read: fetched once with npm, never committed."""
import os
import subprocess
import tarfile

VERSION = "2.8.0"


def fetch(cache: str, name: str) -> str:
    """The path of package/data/<name> under cache, after `npm pack vega-datasets@2.8.0` there if needed."""
    target = os.path.join(cache, "package", "data", name)
    if os.path.exists(target):
        return target
    os.makedirs(cache, exist_ok=True)
    tgz = os.path.join(cache, f"vega-datasets-{VERSION}.tgz")
    if not os.path.exists(tgz):
        subprocess.run(["npm", "pack", f"vega-datasets@{VERSION}"], cwd=cache, check=True, stdout=subprocess.DEVNULL)
    with tarfile.open(tgz) as archive:
        archive.extract(f"package/data/{name}", cache)
    return target
