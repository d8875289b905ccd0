"""Merge PDF files given on the command line, in order, into merged.pdf."""

import sys

print("would merge:", " ".join(sys.argv[1:]))
