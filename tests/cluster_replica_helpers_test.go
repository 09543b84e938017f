package tests

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	clientv3 "go.etcd.io/etcd/client/v3"
)

// replicasFilled waits until every shard has a replica on another node
// that reported its fill for the current placement, as etcd shows.
func replicasFilled(t *testing.T, tc *testCluster, timeout time.Duration) time.Duration {
	t.Helper()
	cli := tc.etcdClient()
	defer cli.Close()
	prefix := "/geoshard/" + tc.name + "/"
	begin := time.Now()
	last := ""
	for time.Since(begin) < timeout {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		resp, err := cli.Get(ctx, prefix, clientv3.WithPrefix())
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		var a struct {
			Owners, Replicas map[string]string
			Since            map[string]int64
		}
		synced := map[string]struct {
			Node  string
			Since int64
		}{}
		for _, kv := range resp.Kvs {
			k := string(kv.Key)
			switch {
			case k == prefix+"assignment":
				json.Unmarshal(kv.Value, &a)
			case strings.HasPrefix(k, prefix+"synced/"):
				rec := synced[""]
				json.Unmarshal(kv.Value, &rec)
				synced[strings.TrimPrefix(k, prefix+"synced/")] = rec
			}
		}
		var missing []string
		for name, o := range a.Owners {
			r, rec := a.Replicas[name], synced[name]
			if r == "" || r == o || rec.Node != r || rec.Since != a.Since[name] {
				missing = append(missing, fmt.Sprintf("%s(primary %s replica %q)", name, o, r))
			}
		}
		if len(a.Owners) > 0 && len(missing) == 0 {
			return time.Since(begin)
		}
		last = strings.Join(missing, " ")
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("replicas not filled after %v: %s", timeout, last)
	return 0
}

// loadRetrying writes the members through c in pipelined batches, trying
// a refused batch again for up to 10 s.
func loadRetrying(t *testing.T, c *redis.Client, ds []*redis.GeoLocation) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for i := 0; i < len(ds); i += 500 {
		for {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			err := c.GeoAdd(ctx, "drivers", ds[i:min(i+500, len(ds))]...).Err()
			cancel()
			if err == nil {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("loading members: %v", err)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
}

// whereMissing says, for a partial answer, where the missing members are
// now (GEOPOS through the same node) and how that node routes the shards
// (GEOSHARD NODES): what a failure report needs to tell a shard left out
// from copies missing in a shard that answered.
func (l *replicaLoad) whereMissing(ctx context.Context, c *redis.Client, missing []string) string {
	qctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	var b strings.Builder
	b.WriteString(" at " + time.Now().UTC().Format("15:04:05.000"))
	if pos, err := c.GeoPos(qctx, "drivers", missing[:min(len(missing), 5)]...).Result(); err == nil {
		for i, p := range pos {
			if p != nil {
				fmt.Fprintf(&b, " %s@%.4f,%.4f", missing[i], p.Longitude, p.Latitude)
			} else {
				fmt.Fprintf(&b, " %s@nil", missing[i])
			}
		}
	}
	if nodes, err := c.Do(qctx, "GEOSHARD", "NODES").StringSlice(); err == nil {
		b.WriteString("\n\t" + strings.Join(nodes, "\n\t"))
	}
	return b.String()
}
