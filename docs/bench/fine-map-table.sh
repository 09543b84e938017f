#!/bin/bash
# Side-by-side rates of searches on a 3-member key: redis-server, geoshard on
# the default map and on the fine map. Usage:
#   fine-map-table.sh GEOSHARD_BINARY FINE_MAP N [N_FINE]
# The fine map: GEOSHARD_FINE_MAP=/tmp/fine.geojson go test ./tests -run TestWriteFineMap
set -e
BIN=$1; MAP=$2; N=${3:-20000}; NF=${4:-$N}
P0=$((20000 + RANDOM % 10000)); P1=$((P0+1)); P2=$((P0+2))
redis-server --port $P0 --save "" --appendonly no >/dev/null &
R=$!
$BIN --port $P1 --dir "${TMPDIR:-/tmp}" >/dev/null 2>&1 &
D=$!
$BIN --port $P2 --dir "${TMPDIR:-/tmp}" --regions $MAP >/dev/null 2>&1 &
F=$!
trap "kill $R $D $F" EXIT
sleep 2
for p in $P0 $P1 $P2; do redis-cli -p $p GEOADD k 4.89 52.37 a 13.40 52.52 b -73.98 40.75 c >/dev/null; done
rate() { redis-benchmark -p $1 -c 4 -n $2 -q "${@:3}" 2>/dev/null | tr '\r' '\n' | grep -o '[0-9.]* requests per second' | tail -1 | cut -d' ' -f1; }
printf "%-60s %12s %12s %12s\n" query redis default fine
while read -r q; do
  [ -z "$q" ] && continue
  r=$(rate $P0 $N $q); d=$(rate $P1 $N $q)
  # The fine map may be slow: ask it for fewer requests when it is.
  f=$(rate $P2 $NF $q)
  printf "%-60s %12s %12s %12s\n" "$q" "$r" "$d" "$f"
done <<'Q'
GEOSEARCH k FROMLONLAT 4.9 52.37 BYRADIUS 2 km ASC
GEOSEARCH k FROMLONLAT 4.9 52.37 BYRADIUS 50 km ASC
GEOSEARCH k FROMLONLAT 4.9 52.37 BYRADIUS 500 km ASC
GEOSEARCH k FROMLONLAT 4.9 52.37 BYRADIUS 5000 km ASC
GEOSEARCH k FROMLONLAT 0 0 BYBOX 40000 20000 km ASC
GEOSEARCH k FROMMEMBER a BYRADIUS 500 km DESC COUNT 2
GEOSEARCH k FROMLONLAT 4.9 52.37 BYRADIUS 5000 km ASC COUNT 1
GEORADIUS k 4.9 52.37 50 km WITHDIST
GEORADIUSBYMEMBER k a 5000 km ASC
Q
