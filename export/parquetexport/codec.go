package parquetexport

import (
	"github.com/klauspost/compress/s2"
	"github.com/parquet-go/parquet-go/compress/snappy"
	"github.com/parquet-go/parquet-go/format"
)

// fastSnappy writes Snappy pages with s2's fast Snappy-compatible encoder.
// parquet-go's codec uses its "better" mode, which took a fifth of the
// writer's time; the fast mode writes standard Snappy a few percent larger.
// Pages are read back by parquet-go's own decoder.
type fastSnappy struct{ snappy.Codec }

func (fastSnappy) String() string                            { return "SNAPPY" }
func (fastSnappy) CompressionCodec() format.CompressionCodec { return format.Snappy }
func (fastSnappy) Encode(dst, src []byte) ([]byte, error) {
	return s2.EncodeSnappy(dst[:cap(dst)], src), nil
}
