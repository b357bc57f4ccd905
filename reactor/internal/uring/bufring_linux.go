//go:build linux

package uring

import (
	"errors"
	"fmt"
	"os"
	"sync/atomic"
	"unsafe"

	"golang.org/x/sys/unix"
)

// BufRing is a provided-buffer ring (IORING_REGISTER_PBUF_RING, 5.19): a
// group of equal buffers the kernel picks from when a receive completes,
// and the application hands back once it has consumed the data. Idle
// connections then hold no buffer at all, where Netty's epoll transport
// allocates one per read from its ByteBufAllocator. Both the slot ring and
// the buffers are anonymous mappings, outside the Go heap, so the garbage
// collector never moves or frees memory the kernel writes into.
type BufRing struct {
	ring  *Ring
	group uint16
	size  int
	mask  uint16
	slots []bufDesc
	// tailWord is the 32-bit word holding the ring's 16-bit tail, which
	// overlays slot 0's resv field; Go has no 16-bit atomic store.
	tailWord *uint32
	tail     uint16
	descMem  []byte
	bufMem   []byte
	out      int // buffers handed to the kernel or the caller, not yet recycled
}

// tailShift places the tail within tailWord: it is the upper half of the
// word at byte offset 12 on a little-endian machine, the lower half on a
// big-endian one.
var tailShift = func() uint32 {
	x := uint32(1)
	if *(*byte)(unsafe.Pointer(&x)) == 1 {
		return 16
	}
	return 0
}()

// NewBufRing registers count buffers of size bytes each as group, all
// available to the kernel. count must be a power of two up to 32768. Like
// every call on a SINGLE_ISSUER ring it is made from the ring's thread.
func (r *Ring) NewBufRing(group uint16, count int, size int) (*BufRing, error) {
	if count <= 0 || count > 1<<15 || count&(count-1) != 0 || size <= 0 {
		return nil, fmt.Errorf("buffer ring: count %d must be a power of two ≤ 32768 and size %d positive", count, size)
	}
	b := &BufRing{ring: r, group: group, size: size, mask: uint16(count - 1)}
	var err error
	if b.descMem, err = anonMmap(count * int(unsafe.Sizeof(bufDesc{}))); err != nil {
		return nil, err
	}
	if b.bufMem, err = anonMmap(count * size); err != nil {
		b.unmap()
		return nil, err
	}
	b.slots = unsafe.Slice((*bufDesc)(unsafe.Pointer(&b.descMem[0])), count)
	b.tailWord = (*uint32)(unsafe.Pointer(&b.descMem[12]))
	reg := bufReg{ringAddr: uint64(uintptr(unsafe.Pointer(&b.descMem[0]))), ringEntries: uint32(count), bgid: group}
	if err := r.register(registerPbufRing, unsafe.Pointer(&reg), 1); err != nil {
		b.unmap()
		if errors.Is(err, unix.EINVAL) {
			return nil, fmt.Errorf("%w: provided-buffer rings not supported: %v", ErrUnavailable, err)
		}
		return nil, err
	}
	for i := range count {
		b.add(uint16(i))
	}
	b.publish()
	return b, nil
}

func anonMmap(size int) ([]byte, error) {
	m, err := unix.Mmap(-1, 0, size, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS|unix.MAP_POPULATE)
	if err != nil {
		return nil, os.NewSyscallError("mmap", err)
	}
	return m, nil
}

// Group is the buffer group id receives name in PrepRecv.
func (b *BufRing) Group() uint16 { return b.group }

// Size is each buffer's length.
func (b *BufRing) Size() int { return b.size }

// Count is the number of buffers in the group.
func (b *BufRing) Count() int { return len(b.slots) }

// Out is the number of buffers the caller holds: taken by a completion and
// not yet recycled. Zero at rest means none was leaked.
func (b *BufRing) Out() int { return b.out }

// Take returns the data a completion delivered into buffer id and counts
// the buffer as held until Recycle.
func (b *BufRing) Take(c *CQE) ([]byte, uint16, bool) {
	if c.Flags&CQEBuffer == 0 {
		return nil, 0, false
	}
	id := c.BufferID()
	b.out++
	n := max(int(c.Res), 0)
	off := int(id) * b.size
	return b.bufMem[off : off+n : off+b.size], id, true
}

// Recycle hands buffer id back to the kernel. The caller must be done with
// the bytes Take returned for it.
func (b *BufRing) Recycle(id uint16) {
	b.out--
	b.add(id)
	b.publish()
}

func (b *BufRing) add(id uint16) {
	s := &b.slots[b.tail&b.mask]
	s.addr = uint64(uintptr(unsafe.Pointer(&b.bufMem[int(id)*b.size])))
	s.len = uint32(b.size)
	s.bid = id
	b.tail++
}

// publish stores the new tail with release order, after the slots it
// covers. The word's other half is slot 0's bid, which only this side
// writes, so reading it back and storing it unchanged is safe.
func (b *BufRing) publish() {
	w := atomic.LoadUint32(b.tailWord)
	w = w&^(0xffff<<tailShift) | uint32(b.tail)<<tailShift
	atomic.StoreUint32(b.tailWord, w)
}

// Close unregisters the group and unmaps its memory. Receives that select
// from it must have completed, and the ring must still be open.
func (b *BufRing) Close() error {
	reg := bufReg{bgid: b.group}
	err := b.ring.register(unregisterPbufRing, unsafe.Pointer(&reg), 1)
	b.unmap()
	return err
}

func (b *BufRing) unmap() {
	for _, m := range [][]byte{b.descMem, b.bufMem} {
		if m != nil {
			_ = unix.Munmap(m)
		}
	}
	b.descMem, b.bufMem, b.slots = nil, nil, nil
}
