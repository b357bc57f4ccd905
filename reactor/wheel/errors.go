package wheel

import (
	"errors"
	"fmt"
)

// Sentinel errors. Callers test them with errors.Is; the returned errors wrap
// them with the details.
var (
	// ErrInvalidConfig rejects a Config or an Option New cannot use.
	ErrInvalidConfig = errors.New("wheel: invalid config")
	// ErrNilTask rejects NewTimeout without a task.
	ErrNilTask = errors.New("wheel: nil task")
	// ErrStopped rejects NewTimeout once Stop has been called (Netty:
	// "cannot be started once stopped").
	ErrStopped = errors.New("wheel: timer stopped")
	// ErrTooManyPending is Netty's RejectedExecutionException when
	// Config.MaxPending timeouts are already pending.
	ErrTooManyPending = errors.New("wheel: too many pending timeouts")
	// ErrStopFromTask rejects Stop called from a timer task: the wheel thread
	// cannot wait for itself to exit (Netty throws IllegalStateException).
	ErrStopFromTask = errors.New("wheel: Stop called from a timer task")
	// ErrMisplaced reports a due timeout found in a slot before its
	// deadline. The slot arithmetic makes it impossible unless the Clock
	// runs backwards; Netty throws IllegalStateException, the wheel reports
	// it and keeps the timeout for a later pass rather than fire it early.
	ErrMisplaced = errors.New("wheel: timeout placed in a wrong slot")
)

// TaskPanicError reports a timer task that panicked. The wheel recovers the
// panic and keeps ticking, as Netty logs a task's exception and carries on.
type TaskPanicError struct {
	Timer string // the timer's name
	ID    uint64 // the timeout's id
	Name  string // the timeout's name
	Value any    // what the task panicked with
	Stack []byte // the task's stack at the panic
}

func (e *TaskPanicError) Error() string {
	return fmt.Sprintf("%s: timer task %d (%s) panicked: %v", e.Timer, e.ID, e.Name, e.Value)
}

// Unwrap returns the panic value when it is an error.
func (e *TaskPanicError) Unwrap() error {
	err, _ := e.Value.(error)
	return err
}
