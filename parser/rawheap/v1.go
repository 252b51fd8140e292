package rawheap

func (d *dyn) v1() error {
	return errAt(0, "V1 not yet read")
}
