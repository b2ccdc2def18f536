"""Studies: the seed papers reproduced (``studies/NAME/``) and compared with their numbers.

Work in progress; see studies/README.md.
"""

from __future__ import annotations

import typer

study_app = typer.Typer(help="Reproduce the seed papers (studies/NAME) and compare.", no_args_is_help=True)
