"""Errors that point at a line of the YAML file, printed the way compilers print theirs."""

from __future__ import annotations


class CodegenError(Exception):
    """One problem in the input: `path:line: error: message`."""

    def __init__(self, path: str, line: int, message: str) -> None:
        super().__init__(f"{path}:{line}: error: {message}")
        self.path = path
        self.line = line
        self.message = message


class CodegenErrors(Exception):
    """Every problem found in one run (validation goes on after the first so that all are reported)."""

    def __init__(self, errors: list[CodegenError]) -> None:
        super().__init__("\n".join(str(e) for e in errors))
        self.errors = errors


class ErrorCollector:
    """Gathers errors while validation continues; raise_if_any() ends the run."""

    def __init__(self) -> None:
        self.errors: list[CodegenError] = []

    def add(self, error: CodegenError) -> None:
        self.errors.append(error)

    def raise_if_any(self) -> None:
        if self.errors:
            raise CodegenErrors(self.errors)
