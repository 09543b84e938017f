package plan

import (
	"math"

	"geoshard/geo"
)

func distM(lon1, lat1, lon2, lat2 float64) float64 { return geo.Distance(lon1, lat1, lon2, lat2) }

// metroXY is Metro.LonLat backwards.
func metroXY(m *Metro, lon, lat float64) (x, y float64) {
	y = (lat - m.OriginLat) * mPerDegLat
	x = (lon - m.OriginLon) * mPerDegLat * math.Cos(m.OriginLat*math.Pi/180)
	return x, y
}
