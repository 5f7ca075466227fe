#!/bin/sh
# Fails the way a plugin reports a problem: a message on stderr and a non-zero exit.
echo "city not found" >&2
exit 3
