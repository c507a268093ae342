"""``python -m vsizer`` runs the command-line interface (same as ``vsizer``)."""

from vsizer.cli import main

main()
