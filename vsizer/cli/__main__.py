"""``python -m vsizer.cli``."""

from vsizer.cli.app import main

main()
