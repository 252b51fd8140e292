package event

import "tracestreamer/parser/jsonscan"

// ScaleText converts µs given as decimal text to ns.
func ScaleText(s string) (int64, bool) {
	v, ok := jsonscan.ScaleDecimal([]byte(s), 3)
	return v, ok && v >= 0
}

// ArgRaw returns the raw JSON of member key of an args object.
func ArgRaw(args []byte, key string) ([]byte, bool) {
	var out []byte
	js := jsonscan.NewBytes(args)
	err := js.Object(func(k []byte) error {
		start := js.Offset()
		if err := js.SkipValue(); err != nil {
			return err
		}
		if string(k) == key {
			out = TrimSpace(args[start:js.Offset()])
		}
		return nil
	})
	return out, err == nil && out != nil
}
