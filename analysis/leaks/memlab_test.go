package leaks

import "strings"

// memlab's element and trace comparisons as memlab writes them, the oracle
// the clusterer's coded comparisons (sameCode, similar) are tested against.

func sameNode(a, b *element) bool {
	if a == nil || b == nil || a.edge || b.edge || a.typ != b.typ {
		return false
	}
	if strings.HasPrefix(a.name, "Window / ") && strings.HasPrefix(b.name, "Window / ") {
		return true
	}
	return a.name == b.name
}

// same is memlab's isSameOrSimilarElement with no similar-word rules.
func same(t1, t2 []element, i int) bool {
	if i >= len(t1) || i >= len(t2) {
		return false
	}
	a, b := &t1[i], &t2[i]
	if a.edge != b.edge {
		return false
	}
	if !a.edge {
		return sameNode(a, b)
	}
	if a.typ != b.typ {
		return false
	}
	if a.number && b.number {
		// Indexed references are the same when their referrers are.
		var ra, rb *element
		if i > 0 {
			ra, rb = &t1[i-1], &t2[i-1]
		}
		return sameNode(ra, rb)
	}
	if strings.HasPrefix(a.name, "__reactFiber$") && strings.HasPrefix(b.name, "__reactFiber$") {
		return true
	}
	return a.name == b.name
}

// similarity is memlab's getSimilarityByTraceElementList with the public
// build's heuristics (no stop words, no decay factors, no start module):
// matching positions weigh less the deeper they are.
func similarity(t1, t2 []element) float64 {
	l1, l2 := len(t1), len(t2)
	d1, d2 := 0.9/float64(l1), 0.9/float64(l2)
	w1, w2 := 1.0, 1.0
	matched, total := 0.0, 0.0
	for i := 0; i < max(l1, l2); {
		if same(t1, t2, i) {
			matched += w1 + w2
		}
		total += w1 + w2
		w1, w2, d1, d2 = w1*0.99, w2*0.99, d1*0.99, d2*0.99
		if w1-d1 >= 0 {
			w1 -= d1
		}
		if w2-d2 >= 0 {
			w2 -= d2
		}
		i++
		if i >= l1 || i >= l2 {
			if s := matched / (total + 0.0001); s > 0.9 {
				return s
			}
		}
	}
	return matched / (total + 0.0001)
}
