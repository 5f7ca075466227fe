#!/bin/sh
# Answers with the JSON arguments it read on stdin.
printf 'input: '
cat
