package arktstest

import (
	"fmt"

	"google.golang.org/protobuf/proto"
)

func marshal(m proto.Message) ([]byte, error) {
	b, err := proto.Marshal(m)
	if err != nil {
		return nil, fmt.Errorf("encode %T: %w", m, err)
	}
	return b, nil
}
