#!/bin/sh
# Refreshes mapview/assets/vendor/ from npm (run by `go generate ./mapview`).
# The page draws with these, embedded in the binary, so /map works with no
# network. Change a version here, run it, look at /map, commit the result.
#   leaflet 1.9.4         - the map (BSD-2-Clause)
#   topojson-client 3.1.0 - turns world-atlas's TopoJSON into GeoJSON (ISC)
#   world-atlas 2.0.2     - Natural Earth 1:50m countries: coastlines and
#                           country borders for the offline base layer (ISC;
#                           Natural Earth data is public domain)
set -eu
cd "$(dirname "$0")"
out=assets/vendor
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && npm pack --silent leaflet@1.9.4 topojson-client@3.1.0 world-atlas@2.0.2 >/dev/null)
for p in leaflet-1.9.4 topojson-client-3.1.0 world-atlas-2.0.2; do
	mkdir -p "$tmp/$p" && tar xzf "$tmp/$p.tgz" -C "$tmp/$p"
done
rm -rf "$out" && mkdir -p "$out/images"
cp "$tmp/leaflet-1.9.4/package/dist/leaflet.js" "$tmp/leaflet-1.9.4/package/dist/leaflet.css" "$out/"
cp "$tmp/leaflet-1.9.4/package/dist/images/"*.png "$out/images/"
cp "$tmp/leaflet-1.9.4/package/LICENSE" "$out/LICENSE.leaflet"
cp "$tmp/topojson-client-3.1.0/package/dist/topojson-client.min.js" "$out/"
cp "$tmp/topojson-client-3.1.0/package/LICENSE" "$out/LICENSE.topojson-client"
cp "$tmp/world-atlas-2.0.2/package/countries-50m.json" "$out/"
cp "$tmp/world-atlas-2.0.2/package/LICENSE" "$out/LICENSE.world-atlas"
