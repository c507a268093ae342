"""``python -m vsizer`` runs the command-line interface (same as ``vsizer``)."""

from vsizer._entry import main

main()
