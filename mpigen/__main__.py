from mpigen.cli import main

raise SystemExit(main())
