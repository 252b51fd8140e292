package cpuprofile

import (
	"bytes"
	"context"
	"io"
)

// The ArkTS runtime writes callFrame.functionName and callFrame.moduleName
// without JSON escaping, so a name containing '"' or '\' makes the profile
// invalid JSON (docs/format/cpuprofile.md#name-repair). Its call frame layout is fixed:
//
//	"callFrame":{"functionName":"…",["moduleName":"…",]"scriptId":"…"
//
// which tells where such a name ends even when it contains quotes.
var (
	functionKey = []byte(`"callFrame":{"functionName":"`)
	moduleNext  = []byte(`","moduleName":"`)
	scriptNext  = []byte(`","scriptId":`)
)

// repairCheck is how many call frames the repair reads between two looks at
// its context.
const repairCheck = 1 << 12

// ParseRepairing parses b; if that fails, it repairs unescaped ArkTS names
// and parses again. repaired is the number of names it had to escape. The
// repair is tried only when the first parse failed at or after the first
// name that needs escaping: before it the repaired text is the same and would
// fail the same way. All of it takes time linear in len(b), and it stops with
// ctx's error soon after ctx is cancelled. The repair is ParseRepairingReader's
// (repairReader), reading b again.
func ParseRepairing(ctx context.Context, b []byte) (p *Profile, repaired int, err error) {
	p, failedAt, err := parse(ctx, b)
	if err == nil || ctx.Err() != nil {
		return p, 0, err
	}
	return repairFrom(ctx, err, failedAt, func() (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(b)), nil
	})
}
