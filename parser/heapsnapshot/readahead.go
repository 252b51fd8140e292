package heapsnapshot

// With more than one core, the numbers and strings of the big arrays are
// read on a goroutine of their own, a block ahead of the Writer, which then
// takes them on the decoder's goroutine: the one chain that held the whole
// decode (reading the JSON, then the Writer and the graph) is two.

// blocksAhead is how many blocks the reading goroutine may fill before the
// Writer has taken them.
const blocksAhead = 3

// offset is the position in the document the Writer's warnings name: where
// the reading of the values being taken ended (that of the read that holds
// them, as when each read was taken at once).
func (d *decoder) offset() int64 {
	if d.piped {
		return d.blockEnd
	}
	return d.js.Offset()
}

// readAhead calls fill, which fills a block from the JSON decoder and says
// whether it is the last, until it is, and hands each block to take in
// order; take says whether it is done (the last block, or an error to
// return). With ahead set (more than one core), fill runs on a goroutine of
// its own, blocksAhead blocks ahead, and alone uses the JSON decoder until
// readAhead returns, whatever happens: when take panics, the reading
// goroutine is stopped and waited for first; when fill panics, the blocks it
// filled before are taken, then the panic is raised again here. Without,
// fill and take alternate on one block.
func readAhead[B any](d *decoder, ahead bool, newBlock func() *B, fill func(*B) bool, take func(*B) (bool, error)) error {
	d.piped = true
	defer func() { d.piped = false }()
	if !ahead {
		b := newBlock()
		for {
			last := fill(b)
			if done, err := take(b); done || last || err != nil {
				return err
			}
		}
	}
	type filled struct {
		b     *B
		panic any // fill's, after the values already in b
	}
	full := make(chan filled, blocksAhead)
	free := make(chan *B, blocksAhead+1)
	for range blocksAhead + 1 {
		free <- newBlock()
	}
	stop, exited := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(exited)
		defer close(full)
		var b *B
		defer func() {
			if p := recover(); p != nil {
				full <- filled{b, p} // never blocks: the Writer holds a block or waits
			}
		}()
		for {
			select {
			case b = <-free:
			case <-stop:
				return
			}
			last := fill(b)
			full <- filled{b: b}
			if last {
				return
			}
		}
	}()
	defer func() {
		close(stop)
		for range full { // let a blocked reader finish
		}
		<-exited
	}()
	for f := range full {
		if done, err := take(f.b); done || err != nil {
			return err
		}
		if f.panic != nil {
			panic(f.panic)
		}
		free <- f.b
	}
	return nil
}
