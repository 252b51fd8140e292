package event

import (
	"reflect"
	"strings"
	"testing"
)

func TestFlattenArgs(t *testing.T) {
	got, err := FlattenArgs([]byte(`{"a":{"b":[7,"x"]},"n":null,"t":true,"f":false,"d":2.5,"e":1e3,` +
		`"big":123456789012345678901234,"neg":-3,"eo":{},"ea":[],"o":{"p":{}}}`))
	if err != nil {
		t.Fatal(err)
	}
	want := []Arg{
		{Key: "a.b[0]", Type: ArgInt, Int: 7},
		{Key: "a.b[1]", Type: ArgString, Str: "x"},
		{Key: "n", Type: ArgString, Null: true},
		{Key: "t", Type: ArgBool, Int: 1},
		{Key: "f", Type: ArgBool},
		{Key: "d", Type: ArgDouble, Float: 2.5},
		{Key: "e", Type: ArgDouble, Float: 1000},
		{Key: "big", Type: ArgString, Str: "123456789012345678901234"},
		{Key: "neg", Type: ArgInt, Int: -3},
		{Key: "eo", Type: ArgString, Str: "{}"},
		{Key: "ea", Type: ArgString, Str: "[]"},
		{Key: "o.p", Type: ArgString, Str: "{}"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("FlattenArgs =\n%+v\nwant\n%+v", got, want)
	}
	deep := strings.Repeat(`{"x":`, MaxArgDepth+2) + "1" + strings.Repeat("}", MaxArgDepth+2)
	got, err = FlattenArgs([]byte(deep))
	if err != nil || len(got) != 1 || got[0].Type != ArgString || !strings.HasPrefix(got[0].Str, `{"x":{"x":1}`) ||
		strings.Count(got[0].Key, "x") != MaxArgDepth {
		t.Errorf("deep args: %+v %v", got, err)
	}
	if got, err := FlattenArgs([]byte(`{}`)); err != nil || len(got) != 0 {
		t.Errorf("empty args: %+v %v", got, err)
	}
	if _, err := FlattenArgs([]byte(`[1]`)); err == nil {
		t.Error("non-object args accepted")
	}
}
