"""GEOADD/GEOSEARCH round trip through redis-py; prints one repr() per line.

Run as: python3 redispy_roundtrip.py PORT
The Go test compares the output against Redis's and against golden lines.
"""
import sys

import redis

r = redis.Redis(host="127.0.0.1", port=int(sys.argv[1]), socket_timeout=10)
r.flushall()
print(repr(r.geoadd("Sicily", [13.361389, 38.115556, "Palermo", 15.087269, 37.502669, "Catania"])))
print(repr(r.geoadd("Sicily", [13.361389, 38.115556, "Palermo"], nx=True)))
print(repr(r.geosearch("Sicily", longitude=15, latitude=37, radius=200, unit="km", sort="ASC")))
print(repr(r.geosearch("Sicily", longitude=15, latitude=37, radius=200, unit="km", sort="ASC",
                       withdist=True, withcoord=True, withhash=True)))
print(repr(r.geosearch("Sicily", member="Palermo", width=400, height=400, unit="km", sort="DESC", count=1)))
print(repr(r.geopos("Sicily", "Palermo", "nope")))
print(repr(r.geodist("Sicily", "Palermo", "Catania", unit="km")))
print(repr(r.geodist("Sicily", "Palermo", "nope")))
print(repr(r.geohash("Sicily", "Palermo", "Catania", "nope")))
print(repr(r.georadius("Sicily", 15, 37, 200, unit="km", withdist=True, sort="ASC")))
print(repr(r.georadiusbymember("Sicily", "Palermo", 200, unit="km", withdist=True)))
print(repr(r.geosearchstore("dst", "Sicily", longitude=15, latitude=37, radius=200, unit="km", storedist=True)))
print(repr(r.zrange("dst", 0, -1, withscores=True)))
try:
    r.geoadd("Sicily", [500, 1, "x"])
except redis.ResponseError as e:
    print("ResponseError: " + str(e))
try:
    r.execute_command("GEOSEARCH", "Sicily", "FROMLONLAT", "15", "37", "BYRADIUS", "200", "parsec")
except redis.ResponseError as e:
    print("ResponseError: " + str(e))
