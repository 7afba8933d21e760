import sys

try:
    from verity.cli import main
except KeyboardInterrupt:  # SIGINT before verity.cli could handle it: the same one line
    print("verity: interrupted (SIGINT)", file=sys.stderr)
    sys.exit(130)

sys.exit(main())
