from desktop_app.cli.entry import main

raise SystemExit(main())
