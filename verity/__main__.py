import sys

from verity.cli.main import main

sys.exit(main())
