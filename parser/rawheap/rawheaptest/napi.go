package rawheaptest

import "strconv"

// NapiObject is a JS object a native module wrapped (JS_WRAPPED_NAPI_OBJECT)
// as AddNapi makes it.
type NapiObject struct {
	// Name is its constructor's name (the string section's).
	Name string
	// Slots are its NativePointers array's slots: the external data of a
	// JS_NATIVE_POINTER there (0: the runtime's callback gave none), or
	// Hole for a slot without one. Nil: NativePointers stays undefined
	// (no pointer was ever set).
	Slots []uint64
	// Property, when not "", is a named property (an Int) the object has
	// in its first inline slot.
	Property string
}

// Hole marks a NativePointers slot that holds no native pointer: the
// runtime fills a new array with holes and puts a hole back when a pointer
// is removed (JSObject::SetNativePointerField with nullptr).
const Hole = ^uint64(0)

// NapiObjects are the wrapped objects mkrawheap -napi adds: a pointer with
// external data, one with none, a removed one (a hole) and one after it
// (its edge named by its slot), and an object never given a pointer.
var NapiObjects = []NapiObject{
	{Name: "NapiOnePointer", Slots: []uint64{0x7e00_0000_1000}},
	{Name: "NapiFourSlots", Slots: []uint64{0x7e00_0000_2000, Hole, 0, 0x7e00_0000_3000}, Property: "handle"},
	{Name: "NapiNoPointers"},
}

// AddNapi adds wrapped NAPI objects (ecmascript/js_object.h's
// JSWrappedNapiObject: a JS object with a NativePointers field, a
// TaggedArray of JS_NATIVE_POINTERs) as the V1 writer dumps them
// (rawheap_dump.cpp, RawHeapDumpV1::DumpNonCMGCObject): a native pointer
// listed in a wrapped object's NativePointers (up to the array's
// ExtraLength) has its ExternalPointer word replaced by the external data
// the VM's NativeReferenceDataCallback gives for it, null without one. Each
// wrapped object is a root and a global handle (a NAPI reference keeps it).
// docs/format/rawheap.md#v1 has the dump's layout.
func (h *Heap) AddNapi(objs []NapiObject) {
	t, np := h.typ("JS_WRAPPED_NAPI_OBJECT"), h.typ("JS_NATIVE_POINTER")
	for _, w := range objs {
		inl, keys := 0, ""
		if w.Property != "" {
			inl, keys = 1, w.Property
		}
		o := h.alloc(t, h.tm(t).EndOffset+uint32(8*inl), stableID("napi:"+w.Name))
		o.HClass = h.hclassOf(t, keys, inl).Addr
		o.Name = w.Name
		o.set(h.field(t, "Properties"), h.emptyArray.Addr)
		o.set(h.field(t, "Elements"), h.emptyArray.Addr)
		if inl > 0 {
			o.set(int(h.tm(t).EndOffset), tagInt|42)
		}
		ptrs := h.field(t, "NativePointers")
		if w.Slots == nil {
			o.set(ptrs, valueUndef) // InitializeNativePointersField
		} else {
			// SetNativePointerFieldCount: NewTaggedArray(count), holes,
			// with ExtraLength = count.
			elems := make([]uint64, len(w.Slots))
			for k, data := range w.Slots {
				if data == Hole {
					elems[k] = valueHole
					continue
				}
				p := h.alloc(np, h.tm(np).EndOffset, stableID("napi:"+w.Name+":"+strconv.Itoa(k)))
				p.HClass = h.hclassOf(np, "", 0).Addr
				p.set(h.field(np, "ExternalPointer"), data)
				p.Native = 64
				p.set32(h.field(np, "BindingSize"), p.Native)
				elems[k] = p.Addr
			}
			arr := h.array(elems, stableID("napi:"+w.Name+":pointers"), h.arrayT)
			arr.set32(12, uint32(len(elems))) // TaggedArray's ExtraLength
			o.set(ptrs, arr.Addr)
		}
		h.Roots = append(h.Roots, o.Addr)
		h.Global = append(h.Global, o.Addr)
	}
}
