"""Generate the client SDKs from the committed spec: ``python -m clients.generate OUT``.

What an SDK author meets, made the way they would make it, from ``openapi/openapi.json``:

- ``OUT/python``: openapi-generator's ``python`` client (package ``tripeaks_sdk``);
- ``OUT/typescript-fetch``: openapi-generator's ``typescript-fetch`` client, compiled by
  ``tsc --strict`` (the TypeScript that clients/ts/package-lock.json pins);
- ``OUT/openapi-python-client``: openapi-python-client's package ``tripeaks_client``;
- ``OUT/openapi-typescript/api.ts``: openapi-typescript's types, for openapi-fetch.

Nothing generated is committed (``make sdk`` writes to ``sdk/``, which git ignores); the
tests in tests/clients generate the same clients into temporary folders and play whole
games with them. The Java generator runs from the jar that the ``openapi-generator-cli``
wheel ships (Java 17 on the machine); the TypeScript tools need ``make node-setup``.

Generation fails on any warning but those in ``KNOWN_WARNINGS``, each of which says why no
change to the spec removes it.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SPEC_PATH = ROOT / "openapi" / "openapi.json"
TS_DIR = ROOT / "clients" / "ts"
NODE_BIN = TS_DIR / "node_modules" / ".bin"
PYTHON_PACKAGE = "tripeaks_sdk"
OPENAPI_PYTHON_CLIENT_PACKAGE = "tripeaks_client"

# What openapi-generator 7.26 prints about this spec that the spec cannot help, and why.
KNOWN_WARNINGS = {
    # FastAPI writes OpenAPI 3.1.0 (JSON Schema nullables, examples): the generator says
    # this of every 3.1 document, whatever it holds.
    "OpenAPI 3.1 support is still in beta": "the spec is OpenAPI 3.1",
    # The generator asks for the $ref of schemas that have none (the python generator's
    # toDefaultValue, the normalizer's isSelfReference) and warns of the null: a document
    # with one path that answers a plain string prints it too.
    "Failed to get the schema name: null": "a defect of the generator, for any document",
    # get_daily_challenge's `date` query parameter: both generators keep the name `Date`
    # for their own date type, warn, and name the parameter `var_date` (python) or `date`
    # (typescript-fetch). Only renaming the public parameter would silence it.
    "Date (reserved word) cannot be used as model name": "the `date` query parameter",
    "Date (model name matches existing language type)": "the `date` query parameter",
}

# Tests and docs of the generated packages are for the generator's authors, not ours.
LEAN = "apiTests=false,modelTests=false,apiDocs=true,modelDocs=true"


class GenerationError(RuntimeError):
    """A generator failed, or printed a warning that is not known."""


def _bin_dir() -> str:
    return str(Path(sys.executable).parent)


def _run(args: Sequence[str], cwd: Path = ROOT, timeout: float = 300) -> str:
    """Run a tool with this interpreter's bin folder first on PATH (openapi-python-client's
    post-generation hook runs the ruff beside it); its output, or raise."""
    env = {**os.environ, "PATH": f"{_bin_dir()}{os.pathsep}{os.environ.get('PATH', '')}"}
    result = subprocess.run(
        list(args), cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout, check=False
    )
    output = result.stdout + result.stderr
    if result.returncode != 0:
        raise GenerationError(f"{' '.join(args)} failed ({result.returncode}):\n{output}")
    return output


def _tool(name: str) -> str:
    found = shutil.which(name, path=_bin_dir())
    if found is None:
        raise GenerationError(f"{name} is not installed: run `make setup`")
    return found


def unexpected_warnings(output: str) -> list[str]:
    """The warnings and errors in a generator's output that KNOWN_WARNINGS does not name."""
    return [
        line
        for line in output.splitlines()
        if (" WARN " in line or " ERROR " in line) and not any(k in line for k in KNOWN_WARNINGS)
    ]


def openapi_generator(generator: str, out: Path, *properties: str) -> str:
    """Run openapi-generator's ``generator`` into ``out``; its output, or raise on a warning
    that is not known."""
    shutil.rmtree(out, ignore_errors=True)
    args = [_tool("openapi-generator-cli"), "generate", "--input-spec", str(SPEC_PATH)]
    args += ["--generator-name", generator, "--output", str(out), "--global-property", LEAN]
    if properties:
        args += ["--additional-properties", ",".join(properties)]
    output = _run(args)
    if unexpected := unexpected_warnings(output):
        raise GenerationError(f"openapi-generator {generator} warned:\n" + "\n".join(unexpected))
    return output


def python_client(out: Path) -> Path:
    """openapi-generator's python client in ``out``; the folder to put on sys.path."""
    openapi_generator(
        "python",
        out,
        f"packageName={PYTHON_PACKAGE}",
        "projectName=tripeaks-sdk",
        "packageVersion=1.0.0",
    )
    return out


def typescript_fetch_client(out: Path) -> Path:
    """openapi-generator's typescript-fetch client in ``out``, type-checked by
    ``tsc --strict``."""
    openapi_generator("typescript-fetch", out, "supportsES6=true", "npmName=tripeaks-sdk")
    tsc = NODE_BIN / "tsc"
    if not tsc.exists():
        raise GenerationError(f"{tsc} is missing: run `make node-setup`")
    # The compiler options on the command line: the generated tsconfig.json is the
    # generator's choice, and --strict is ours.
    _run(
        [
            str(tsc),
            "--strict",
            "--noEmit",
            "--target",
            "ES2022",
            "--module",
            "ES2022",
            "--moduleResolution",
            "bundler",
            "--lib",
            "ES2022,DOM",
            str(out / "src" / "index.ts"),
        ],
        cwd=out,
    )
    return out


def openapi_python_client(out: Path) -> Path:
    """openapi-python-client's package in ``out``; the folder to put on sys.path."""
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    _run(
        [
            _tool("openapi-python-client"),
            "generate",
            "--path",
            str(SPEC_PATH),
            "--meta",
            "none",
            "--output-path",
            str(out / OPENAPI_PYTHON_CLIENT_PACKAGE),
            "--fail-on-warning",
        ],
        timeout=120,
    )
    return out


def openapi_typescript(out: Path) -> Path:
    """openapi-typescript's types in ``out/api.ts`` (for openapi-fetch)."""
    tool = NODE_BIN / "openapi-typescript"
    if not tool.exists():
        raise GenerationError(f"{tool} is missing: run `make node-setup`")
    out.mkdir(parents=True, exist_ok=True)
    _run(
        [
            str(tool),
            str(SPEC_PATH),
            "--default-non-nullable=false",
            "--output",
            str(out / "api.ts"),
        ],
        cwd=TS_DIR,
    )
    return out / "api.ts"


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: python -m clients.generate OUT", file=sys.stderr)
        return 2
    out = Path(argv[0]).resolve()
    made = [
        python_client(out / "python"),
        typescript_fetch_client(out / "typescript-fetch"),
        openapi_python_client(out / "openapi-python-client"),
        openapi_typescript(out / "openapi-typescript"),
    ]
    for path in made:
        print(f"wrote {path.relative_to(Path.cwd()) if path.is_relative_to(Path.cwd()) else path}")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except GenerationError as e:
        print(e, file=sys.stderr)
        sys.exit(1)
