package heapsnapshot

import "errors"

const (
	tID = iota
	tFunctionInfoIndex
	tCount
	tSize
	tChildren
)

// traceTree flattens the nested trace_tree array depth-first in pre-order
// (a node, then its subtree, then its next sibling) with an explicit stack, so
// that any depth works. Each row's parent_id is the id of the enclosing node,
// -1 at the top level. Incomplete trailing groups are ignored.
func (d *decoder) traceTree() error {
	l := d.layoutOf("trace_node_fields", traceNodeNames)
	if l.pos[tChildren] != l.stride-1 {
		return errors.New("\"children\" must be the last trace node field")
	}
	js := d.js
	if err := js.Expect('['); err != nil {
		return err
	}
	type frame struct {
		parent int64
		first  bool
	}
	stack := []frame{{parent: -1, first: true}}
	vals := make([]int64, l.stride)
	for len(stack) > 0 {
		top := &stack[len(stack)-1]
		more, err := js.More(top.first)
		if err != nil {
			return err
		}
		top.first = false
		if !more {
			stack = stack[:len(stack)-1]
			continue
		}
		complete := true
		for f := 0; f < l.stride-1; f++ {
			if f > 0 {
				if more, err = js.More(false); err != nil {
					return err
				} else if !more {
					complete = false
					break
				}
			}
			if vals[f], err = js.ReadInt(); err != nil {
				return err
			}
		}
		if !complete {
			d.w.Warn("incomplete trace_tree node ignored")
			stack = stack[:len(stack)-1]
			continue
		}
		if more, err = js.More(false); err != nil {
			return err
		} else if !more {
			d.w.Warn("trace_tree node without children ignored")
			stack = stack[:len(stack)-1]
			continue
		}
		parent := top.parent
		id := l.get(vals, tID)
		d.w.TraceNode(id, l.get(vals, tFunctionInfoIndex), l.get(vals, tCount), l.get(vals, tSize), parent)
		if err := js.Expect('['); err != nil {
			return err
		}
		stack = append(stack, frame{parent: id, first: true})
	}
	return nil
}
