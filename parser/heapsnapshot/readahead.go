package heapsnapshot

import "sync"

// With more than one core, the numbers and strings of the big arrays are
// read on a goroutine of their own, a block ahead of the Writer, which then
// takes them on the decoder's goroutine: the one chain that held the whole
// decode (reading the JSON, then the Writer and the graph) is two. With 8
// cores or more, the reading goroutine only takes the text of the numbers
// off the stream (jsonscan.IntsText), and workers read the numbers from it
// (parseWorkers).

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
//
// With workers (ahead only), parse finishes each block that fill filled on
// one of that many goroutines, which work on as many blocks at once, before
// take has it; a panic of parse is raised again here when take would have
// had the block. The workers are gone when readAhead returns.
func readAhead[B any](d *decoder, ahead bool, workers int, newBlock func() *B, fill func(*B) bool, parse func(*B), take func(*B) (bool, error)) error {
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
		b      *B
		panic  any           // fill's, after the values already in b
		parsed chan struct{} // closed once parse is done with b; nil without workers
		parseP any           // parse's panic
	}
	blocks := blocksAhead + 1 + workers
	full := make(chan *filled, blocks)
	free := make(chan *B, blocks)
	for range blocks {
		free <- newBlock()
	}
	var toParse chan *filled
	var parsers sync.WaitGroup
	if workers > 0 {
		toParse = make(chan *filled, blocks)
		for range workers {
			parsers.Add(1)
			go func() {
				defer parsers.Done()
				for f := range toParse {
					func() {
						defer close(f.parsed)
						defer func() { f.parseP = recover() }()
						parse(f.b)
					}()
				}
			}()
		}
	}
	// send hands a block to take, through a worker if there are any; it
	// never blocks (there are no more blocks than room in the channels).
	send := func(f *filled) {
		if toParse != nil {
			f.parsed = make(chan struct{})
			toParse <- f
		}
		full <- f
	}
	stop, exited := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(exited)
		defer close(full)
		if toParse != nil {
			defer close(toParse)
		}
		var b *B
		defer func() {
			if p := recover(); p != nil {
				send(&filled{b: b, panic: p})
			}
		}()
		for {
			select {
			case b = <-free:
			case <-stop:
				return
			}
			last := fill(b)
			send(&filled{b: b})
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
		parsers.Wait()
	}()
	for f := range full {
		if f.parsed != nil {
			<-f.parsed
			if f.parseP != nil {
				panic(f.parseP)
			}
		}
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
