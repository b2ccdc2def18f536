"""`python -m bufferlab` is the `bufferlab` command."""

from bufferlab.cli import main

if __name__ == "__main__":
    main()
