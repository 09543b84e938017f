// Package shard holds the two things a region has: the region map
// (regionmap*.go: GeoJSON areas, validation, the owner of any coordinate,
// which areas a search or a margin touches, which areas are neighbours)
// and one region's index (shard.go, set.go: per geo key a slab of
// members ordered by their Redis score in a B-tree, walked by score range
// for Redis's cell scans and nearest-first for COUNT searches, walk.go).
// It imports only geo: routing, commands and the network sit above it.
package shard
