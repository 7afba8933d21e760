import sys

from verity.cli import main

sys.exit(main())
