package tests

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// BYPOLYGON (Valkey 9.0's shape, no Redis 7 reference) through real
// clients against a real geoshard: Valkey's documented example answers as
// Valkey documents it.
func TestPolygonRealClients(t *testing.T) {
	p := startGeoshard(t, "geoshard")
	poly := strings.Fields("BYPOLYGON 5 12.41098696654226 38.05033923003755 15.107936245794182 38.00616649901906 " +
		"18.148439288534455 38.63804787603499 17.80831874257693 39.50316813110968 12.458468633214036 38.57719533463012")
	port := strconv.Itoa(p.port)
	runCLI(t, "", "-p", port, "GEOADD", "Sicily", "13.361389", "38.115556", "Palermo", "15.087269", "37.502669", "Catania",
		"12.758489", "38.788135", "edge1", "17.241510", "38.788135", "edge2")
	if got := runCLI(t, "", append([]string{"-p", port, "GEOSEARCH", "Sicily"}, append(poly, "ASC", "WITHDIST")...)...); got != "Palermo\n166482.0159\nedge2\n180861.7725\n" {
		t.Errorf("redis-cli GEOSEARCH BYPOLYGON printed %q", got)
	}
	for _, proto := range []int{2, 3} {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		rdb := redis.NewClient(&redis.Options{Addr: p.addr, Protocol: proto, DialTimeout: 5 * time.Second})
		args := []any{"GEOSEARCHSTORE", "inside", "Sicily"}
		for _, w := range poly {
			args = append(args, w)
		}
		if n, err := rdb.Do(ctx, append(args, "STOREDIST")...).Int(); err != nil || n != 2 {
			t.Errorf("RESP%d GEOSEARCHSTORE = %d, %v", proto, n, err)
		}
		got, err := rdb.ZRangeWithScores(ctx, "inside", 0, -1).Result()
		if err != nil || len(got) != 2 || got[0].Member != "Palermo" || got[1].Member != "edge2" ||
			strconv.FormatFloat(got[0].Score, 'f', 4, 64) != "166482.0159" {
			t.Errorf("RESP%d stored %v, %v", proto, got, err)
		}
		_, err = rdb.Do(ctx, "GEOSEARCH", "Sicily", "BYPOLYGON", "2", "1", "1", "2", "2").Result()
		if err == nil || err.Error() != "ERR GEOSEARCH BYPOLYGON must have at least 3 vertices" {
			t.Errorf("RESP%d two vertices: %v", proto, err)
		}
		names, err := rdb.Do(ctx, append([]any{"GEOSEARCH", "Sicily"}, args[3:]...)...).StringSlice()
		if err != nil || !slices.Equal(names, []string{"Palermo", "edge2"}) {
			t.Errorf("RESP%d GEOSEARCH = %v, %v", proto, names, err)
		}
		rdb.Close()
		cancel()
	}
}
