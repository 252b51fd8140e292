package leaks

import (
	"hash/maphash"
	"strings"
)

// MaxComparisons bounds the trace comparisons of one clustering. memlab
// clusters at most maxSamplesForClustering (5 000) traces, sampled at random
// from more, so it never compares more than 5 000 × 4 999 / 2 pairs; every
// trace is clustered here, and the comparisons the index below cannot avoid
// (many traces of one length and prefix, none similar) stop at that count.
const MaxComparisons = 5000 * 4999 / 2

// boundMargin covers the rounding of the bounds below (sums of at most
// 2·maxTraceLen weights of at most 1, off by 1e-13 at most): a bound rules a
// pair out only when it is below the threshold by more than this.
const boundMargin = 1e-9

// maxTraceLen is the longest trace: MaxTraceNodes nodes and the edges between.
const maxTraceLen = 2*MaxTraceNodes - 1

// pairBound is what similarity's weights allow for two traces of lengths l1
// and l2 (its positions 0 … max(l1, l2)−1, position p weighing w1(p)+w2(p)).
type pairBound struct {
	// total is the sum of all the weights, as similarity adds them.
	total float64
	// prefix is the number of leading positions where one mismatch alone
	// rules similarity out: p < min(l1, l2) with
	// (total − w1(p) − w2(p)) / (total + 0.0001) below the threshold.
	//
	// Why: similarity returns matched(j) / (total(j) + 0.0001) after some
	// j ≥ min(l1, l2) positions (its early return, which needs more than
	// 0.9, or its end, j = max(l1, l2)), so p < j is among them. With m the
	// weight of the mismatched positions, that is (total(j) − m) /
	// (total(j) + 0.0001), which grows with total(j) ≤ total and falls with
	// m ≥ w1(p) + w2(p). Weights fall with p, so the ruled-out positions are
	// a prefix: a similar pair has the same elements there.
	prefix int
}

// bound computes similarity's weights for lengths l1 and l2 the way it does.
func bound(l1, l2 int) pairBound {
	d1, d2 := 0.9/float64(l1), 0.9/float64(l2)
	w1, w2 := 1.0, 1.0
	var b pairBound
	var first [maxTraceLen]float64 // w1(p)+w2(p) for p < min(l1, l2, maxTraceLen)
	n := min(l1, l2, maxTraceLen)
	for i := 0; i < max(l1, l2); i++ {
		if i < n {
			first[i] = w1 + w2
		}
		b.total += w1 + w2
		w1, w2, d1, d2 = w1*0.99, w2*0.99, d1*0.99, d2*0.99
		if w1-d1 >= 0 {
			w1 -= d1
		}
		if w2-d2 >= 0 {
			w2 -= d2
		}
	}
	for b.prefix < n && (b.total-first[b.prefix])/(b.total+0.0001) < SimilarTraceThreshold-boundMargin {
		b.prefix++
	}
	return b
}

// numberEdge marks the code of an edge whose name is a number (same compares
// the referrers of two such edges).
const numberEdge = 1 << 31

// sameCode is same (memlab's isSameOrSimilarElement, in memlab_test.go as
// memlab writes it) for coded traces (clusterer.code): elements are same when
// their traceKey parts are, and number edges when their referrers are too.
func sameCode(t1, t2 []uint32, i int) bool {
	if i >= len(t1) || i >= len(t2) || t1[i] != t2[i] {
		return false
	}
	return t1[i]&numberEdge == 0 || (i > 0 && t1[i-1] == t2[i-1])
}

// similar is similarity(t1, t2) >= SimilarTraceThreshold (similarity: memlab's
// getSimilarityByTraceElementList, in memlab_test.go) for coded traces,
// given the total of their weights (bound's): it stops once the weight of
// the mismatched positions leaves no later result at the threshold (the
// argument of pairBound.prefix, for any set of mismatched positions).
func similar(t1, t2 []uint32, total float64) bool {
	l1, l2 := len(t1), len(t2)
	d1, d2 := 0.9/float64(l1), 0.9/float64(l2)
	w1, w2 := 1.0, 1.0
	matched, sum, missed := 0.0, 0.0, 0.0
	for i := 0; i < max(l1, l2); {
		if sameCode(t1, t2, i) {
			matched += w1 + w2
		} else {
			missed += w1 + w2
			if (total-missed)/(total+0.0001) < SimilarTraceThreshold-boundMargin {
				return false
			}
		}
		sum += w1 + w2
		w1, w2, d1, d2 = w1*0.99, w2*0.99, d1*0.99, d2*0.99
		if w1-d1 >= 0 {
			w1 -= d1
		}
		if w2-d2 >= 0 {
			w2 -= d2
		}
		i++
		if i >= l1 || i >= l2 {
			if s := matched / (sum + 0.0001); s > 0.9 {
				return true
			}
		}
	}
	return matched/(sum+0.0001) >= SimilarTraceThreshold
}

// clusterer finds the first cluster whose representative (first trace) is
// similar to a trace, as memlab's loop over all of them does, comparing the
// trace only with the representatives that can be similar: those of each
// length whose first bound(l1, l2).prefix elements are the same.
//
// Traces are coded: each element as the number of its traceKey part. Two
// elements are same (same) exactly when these parts are equal and, for
// edges whose names are numbers, their referrers' parts too: a node's part
// is its type and name, "Window / " names made one; an edge's its type and
// name, numbers made one and "__reactFiber$" names made one. An edge's
// number flag follows from its type (element, hidden) and name, so two edges
// of one type and name are both numbers or both not.
type clusterer struct {
	seed   maphash.Seed
	codes  map[string]uint32 // traceKey part → code
	reps   [][]uint32
	byLen  map[int][]int32       // representatives of each length, in order
	lens   []int                 // the lengths of byLen
	kmax   map[int]int           // length → the longest prefix it is indexed by
	index  map[prefixKey][]int32 // (length, prefix, key hash) → representatives, in order
	bounds map[[2]int]pairBound

	compared int // comparisons made
	limit    int // at most this many (MaxComparisons)
	key      strings.Builder
	ends     []int
	hashes   []uint64
	h        maphash.Hash
}

type prefixKey struct {
	len, prefix int
	hash        uint64
}

func newClusterer(seed maphash.Seed) *clusterer {
	c := &clusterer{seed: seed, codes: map[string]uint32{}, byLen: map[int][]int32{}, kmax: map[int]int{},
		index: map[prefixKey][]int32{}, bounds: map[[2]int]pairBound{}, ends: make([]int, 0, 64),
		limit: MaxComparisons}
	c.h.SetSeed(seed)
	return c
}

func (c *clusterer) bound(l1, l2 int) pairBound {
	k := [2]int{l1, l2}
	b, ok := c.bounds[k]
	if !ok {
		b = bound(l1, l2)
		c.bounds[k] = b
	}
	return b
}

// code returns t's elements' codes.
func (c *clusterer) code(t []element) []uint32 {
	key, ends := traceKeyEnds(&c.key, t, c.ends[:0])
	c.ends = ends
	out := make([]uint32, len(t))
	from := 0
	for i, e := range ends {
		part := key[from:e]
		from = e
		id, ok := c.codes[part]
		if !ok {
			id = uint32(len(c.codes)) // fewer than 2³¹: one per distinct name at most
			c.codes[strings.Clone(part)] = id
		}
		if t[i].edge && t[i].number {
			id |= numberEdge
		}
		out[i] = id
	}
	return out
}

// prefixHashes sets c.hashes[i] to the hash of the codes t[:i+1], for i < n.
func (c *clusterer) prefixHashes(t []uint32, n int) {
	c.hashes = c.hashes[:0]
	c.h.Reset()
	var b [4]byte
	for _, id := range t[:n] {
		b[0], b[1], b[2], b[3] = byte(id), byte(id>>8), byte(id>>16), byte(id>>24)
		c.h.Write(b[:])
		c.hashes = append(c.hashes, c.h.Sum64())
	}
}

// add returns the cluster of trace t: the first similar representative's, or
// a new one (len of the representatives before it) with t as representative.
// ok is false when the comparisons ran out before t was compared with every
// representative that could be similar (t then starts a new cluster).
func (c *clusterer) add(e []element) (cluster int, ok bool) {
	t := c.code(e)
	l1 := len(t)
	best := -1
	ok = true
	hashed := 0
	// The longest prefix needed: each representative length's kmax bounds it.
	for _, l2 := range c.lens {
		k := min(c.bound(l1, l2).prefix, c.kmax[l2])
		hashed = max(hashed, k)
	}
	if hashed > 0 {
		c.prefixHashes(t, hashed)
	}
search:
	for _, l2 := range c.lens {
		b := c.bound(l1, l2)
		k := min(b.prefix, c.kmax[l2])
		cand := c.byLen[l2]
		if k > 0 {
			cand = c.index[prefixKey{l2, k, c.hashes[k-1]}]
		}
		for _, r := range cand {
			if best >= 0 && int(r) >= best {
				break
			}
			if c.compared >= c.limit {
				ok = false
				best = -1
				break search
			}
			c.compared++
			if similar(c.reps[r], t, b.total) {
				best = int(r)
				break
			}
		}
	}
	if best >= 0 {
		return best, true
	}
	return c.newRep(t), ok
}

// newRep makes t the representative of a new cluster and indexes it.
func (c *clusterer) newRep(t []uint32) int {
	r := int32(len(c.reps))
	c.reps = append(c.reps, t)
	l := len(t)
	if _, ok := c.byLen[l]; !ok {
		c.lens = append(c.lens, l)
		km := 0
		for l1 := 1; l1 <= max(maxTraceLen, l); l1++ {
			km = max(km, c.bound(l1, l).prefix)
		}
		c.kmax[l] = km
	}
	c.byLen[l] = append(c.byLen[l], r)
	if km := c.kmax[l]; km > 0 {
		c.prefixHashes(t, km)
		for k := 1; k <= km; k++ {
			pk := prefixKey{l, k, c.hashes[k-1]}
			c.index[pk] = append(c.index[pk], r)
		}
	}
	return int(r)
}
