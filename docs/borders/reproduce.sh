#!/bin/sh
# Reproduces every figure and picture of docs/BORDERS.md from the
# repository root: sh docs/borders/reproduce.sh [workdir]
# Needs Go, chromium (headless) and redis-cli; uses loopback ports
# 6391-6394 and 9391-9394. Takes a few minutes on two cores.
set -eu
work=${1:-/tmp/geoshard-borders}
bin=$work/bin
mkdir -p "$bin" "$work/out"
go build -o "$bin/" ./cmd/geoshard ./cmd/geoshard-plan ./cmd/geoshard-sim

# The demo workload: one hour of 1000 drivers and 5 searches/s.
"$bin/geoshard-plan" synth --out "$work/demo" --drivers 1000 --duration 1h --searches-per-sec 5
P="--pings $work/demo/pings.csv --searches $work/demo/searches.csv"

# The proposal, the equal grid, the report and the pictures (one scale).
"$bin/geoshard-plan" propose $P --shards 4 \
	--out docs/borders/metro-proposed.geojson --naive-out docs/borders/metro-grid.geojson
"$bin/geoshard-plan" report $P --map docs/borders/metro-proposed.geojson \
	--map docs/borders/metro-grid.geojson --svg-dir "$work/out"
cp "$work/out/metro-proposed.png" "$work/out/metro-grid.png" docs/borders/
for v in "6 rect 0.5" "8 rect 0.5" "4 rect 0.2" "4 follow 0.5"; do
	set -- $v
	echo "== --shards $1 --shape $2 --tolerance $3"
	"$bin/geoshard-plan" propose $P --shards $1 --shape $2 --tolerance $3 \
		--out "$work/out/p-$1-$2.geojson" --png "$work/out/p-$1-$2-$3.png" | sed -n '3,10p'
done
cp "$work/out/p-4-follow-0.5.png" docs/borders/metro-follow.png
"$bin/geoshard-plan" sweep $P --max-shards 8

# The same files replayed against live servers: the server's counters.
serve() { # port metrics-port regions
	"$bin/geoshard" --port $1 --metrics-port $2 --map-tiles none --dir "$work" ${3:+--regions $3} >"$work/server-$1.log" 2>&1 &
	echo $! >"$work/server-$1.pid"
	sleep 1
}
stop() { # port: ends that server and waits for it to be gone
	kill "$(cat "$work/server-$1.pid")"
	wait "$(cat "$work/server-$1.pid")" 2>/dev/null || true
}
port=6390
for m in grid proposed; do
	port=$((port + 1))
	serve $port $((port + 3000)) docs/borders/metro-$m.geojson
	echo "== live server, metro-$m.geojson"
	"$bin/geoshard-sim" -addr 127.0.0.1:$port -pings "$work/demo/pings.csv" \
		-searches-file "$work/demo/searches.csv" -progress 1h | head -1
	stop $port
done

shot() { # url file
	chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --window-size=1200,760 \
		--user-data-dir="$work/chromium" --virtual-time-budget=6000 --screenshot="$2" "$1" 2>/dev/null
}

# /map of the demo metro while the simulator runs (rates per second).
serve 6393 9393 docs/borders/metro-proposed.geojson
"$bin/geoshard-sim" -addr 127.0.0.1:6393 -duration 40s -drivers 1000 -searches 20 -speed 10 >"$work/sim.log" &
sim=$!
sleep 20
shot "http://127.0.0.1:9393/map" docs/borders/mapview-metro.png
shot "http://127.0.0.1:9393/map#mode=handoffs&span=total" docs/borders/mapview-metro-handoffs.png
wait $sim
tail -n 8 "$work/sim.log"
stop 6393

# /map of the default world map with drivers in a few cities.
serve 6394 9394 ""
awk 'BEGIN {
	n = split("-74.0,40.7 -118.2,34.0 -46.6,-23.5 -0.1,51.5 2.35,48.85 13.4,52.5 31.2,30.0 28.0,-26.2 " \
		"55.3,25.2 77.2,28.6 72.8,19.0 116.4,39.9 121.5,31.2 139.7,35.7 103.8,1.35 151.2,-33.9 " \
		"37.6,55.75 -99.1,19.4", city, " ")
	for (c = 1; c <= n; c++) {
		split(city[c], p, ",")
		for (i = 0; i < 40; i++)
			printf "GEOADD drivers %.4f %.4f d-%d-%d\n", p[1] + (i % 7 - 3) * 0.05, p[2] + (int(i / 7) - 3) * 0.05, c, i
	}
}' | redis-cli -p 6394 >/dev/null
shot "http://127.0.0.1:9394/map#span=total" docs/borders/mapview-world.png
stop 6394
