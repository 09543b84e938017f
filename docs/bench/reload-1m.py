# Max PING and GEOSEARCH latency while CONFIG SET regions reloads a map
# under 1M drivers. Usage: reload-1m.py PORT MAPFILE ("none": the same
# probes for 30 s with no reload, the baseline on a loaded machine).
import redis, random, sys, threading, time
port, mapfile = int(sys.argv[1]), sys.argv[2]
r = redis.Redis(port=port)
random.seed(1)
cities = [(4.90, 52.37), (4.48, 51.92), (4.30, 52.07), (5.12, 52.09), (5.47, 51.44)]
p = r.pipeline(transaction=False)
for i in range(0, 1_000_000, 2000):
    args = []
    for j in range(i, i + 2000):
        c = random.choice(cities)
        args += [c[0] + random.gauss(0, 0.05), c[1] + random.gauss(0, 0.03), "driver:%d" % j]
    p.execute_command("GEOADD", "drivers", *args)
    if i % 100_000 == 0:
        p.execute()
p.execute()
stop = False
worst = {"PING": 0.0, "GEOSEARCH": 0.0}
def probe(name, cmd):
    c = redis.Redis(port=port)
    c.response_callbacks.pop("GEOSEARCH", None)
    while not stop:
        t = time.perf_counter(); c.execute_command(*cmd); worst[name] = max(worst[name], time.perf_counter() - t)
        time.sleep(0.001)
ts = [threading.Thread(target=probe, args=("PING", ["PING"])),
      threading.Thread(target=probe, args=("GEOSEARCH", ["GEOSEARCH", "drivers", "FROMLONLAT", "4.9", "52.37", "BYRADIUS", "1", "km", "ASC", "COUNT", "10"]))]
for t in ts: t.start()
time.sleep(1)
t0 = time.perf_counter()
if mapfile == "none":
    # Baseline: the same probes and INFO polling for 30 s, no reload.
    while time.perf_counter() - t0 < 30:
        r.info("shards"); time.sleep(0.2)
else:
    r.execute_command("CONFIG", "SET", "regions", mapfile)
held = time.perf_counter() - t0
while True:
    info = r.info("shards")
    if info.get("region_map_move", "done") == "done":
        break
    time.sleep(0.2)
moved = time.perf_counter() - t0
time.sleep(0.5)
stop = True
for t in ts: t.join()
print("CONFIG SET took %.1f ms; move done after %.1f s; slowest PING %.1f ms, slowest GEOSEARCH %.1f ms" %
      (held * 1000, moved, worst["PING"] * 1000, worst["GEOSEARCH"] * 1000))
