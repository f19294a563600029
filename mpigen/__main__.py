from mpigen.cli.main import main

raise SystemExit(main())
