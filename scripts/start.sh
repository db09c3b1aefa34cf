#!/bin/sh
# `npm start [-- all|api|worker]`, after the build: the bundle on plain node with the heap limit
# of the part it runs. The limits come from bench/memory.ts (docs/contributing/benchmarks.md, "Memory"): each
# is at least 1/0.6 of the part's peak heap under load plus the hostile set. The Dockerfile and
# docker-compose.yml repeat them; test/deploy/heap-limits.test.ts keeps the three equal.
# Two malloc arenas instead of eight per core: ~25 MB less peak RSS under load.
case "${1:-all}" in
  all) heap=384 ;;
  api) heap=384 ;;
  worker) heap=192 ;;
  *) heap=384 ;; # dist/main.js names the parts and exits 2
esac
MALLOC_ARENA_MAX=2 exec node --max-old-space-size=$heap dist/main.js "$@"
