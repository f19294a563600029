"""`python -m mpigen`: the command line."""

from mpigen.cli.main import main

raise SystemExit(main())
