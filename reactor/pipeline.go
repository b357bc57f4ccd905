package reactor

// Handler is one stage of a channel's pipeline. Every callback runs on the
// channel's loop thread, serially, so a handler needs no locks (C18). To
// pass an event on, call the matching ctx.Fire method; embed
// HandlerAdapter to forward everything you do not handle.
//
// Messages are byte slices that alias the loop's read buffer: valid only
// during the call. A handler that keeps bytes must copy them.
type Handler interface {
	ChannelActive(ctx *Context)
	ChannelRead(ctx *Context, msg []byte)
	ChannelReadComplete(ctx *Context)
	ChannelInactive(ctx *Context)
	ExceptionCaught(ctx *Context, err error)
}

// HandlerAdapter forwards every event to the next handler.
type HandlerAdapter struct{}

// ChannelActive forwards.
func (HandlerAdapter) ChannelActive(ctx *Context) { ctx.FireChannelActive() }

// ChannelRead forwards.
func (HandlerAdapter) ChannelRead(ctx *Context, msg []byte) { ctx.FireChannelRead(msg) }

// ChannelReadComplete forwards.
func (HandlerAdapter) ChannelReadComplete(ctx *Context) { ctx.FireChannelReadComplete() }

// ChannelInactive forwards.
func (HandlerAdapter) ChannelInactive(ctx *Context) { ctx.FireChannelInactive() }

// ExceptionCaught forwards.
func (HandlerAdapter) ExceptionCaught(ctx *Context, err error) { ctx.FireExceptionCaught(err) }

// Context binds a handler to its place in one channel's pipeline.
type Context struct {
	ch   *Channel
	idx  int
	name string
}

// Channel returns the channel this context belongs to.
func (c *Context) Channel() *Channel { return c.ch }

// EventLoop returns the loop the channel is registered with.
func (c *Context) EventLoop() *EventLoop { return c.ch.loop }

// Name returns the handler's name in the pipeline.
func (c *Context) Name() string { return c.name }

func (c *Context) next() (Handler, *Context) {
	p := &c.ch.pipeline
	if i := c.idx + 1; i < len(p.handlers) {
		return p.handlers[i], &p.ctxs[i]
	}
	return nil, nil
}

// FireChannelActive passes channelActive to the next handler.
func (c *Context) FireChannelActive() {
	if h, n := c.next(); h != nil {
		h.ChannelActive(n)
	}
}

// FireChannelRead passes a message to the next handler.
func (c *Context) FireChannelRead(msg []byte) {
	if h, n := c.next(); h != nil {
		h.ChannelRead(n, msg)
	}
}

// FireChannelReadComplete passes channelReadComplete on.
func (c *Context) FireChannelReadComplete() {
	if h, n := c.next(); h != nil {
		h.ChannelReadComplete(n)
	}
}

// FireChannelInactive passes channelInactive on.
func (c *Context) FireChannelInactive() {
	if h, n := c.next(); h != nil {
		h.ChannelInactive(n)
	}
}

// FireExceptionCaught passes an error on; past the last handler it is
// dropped, as Netty's tail logs and releases it.
func (c *Context) FireExceptionCaught(err error) {
	if h, n := c.next(); h != nil {
		h.ExceptionCaught(n, err)
	}
}

// Write queues b on the channel's outbound buffer (copied). Loop thread only.
func (c *Context) Write(b []byte) { c.ch.write(b) }

// Flush writes what is queued. Loop thread only.
func (c *Context) Flush() { c.ch.flush() }

// WriteAndFlush is Write then Flush.
func (c *Context) WriteAndFlush(b []byte) {
	c.ch.write(b)
	c.ch.flush()
}

// Close closes the channel. Loop thread only.
func (c *Context) Close() { c.ch.closeWith("closed by handler") }

// CloseAfterFlush writes what is pending, then closes the channel.
func (c *Context) CloseAfterFlush() { c.ch.closeAfterFlush() }

// Pipeline is a channel's ordered list of handlers.
type Pipeline struct {
	handlers []Handler
	ctxs     []Context
}

// AddLast appends a handler. Call it from the channel initializer, before
// the channel is active.
func (p *Pipeline) AddLast(name string, h Handler) {
	p.handlers = append(p.handlers, h)
	p.ctxs = append(p.ctxs, Context{name: name})
}

func (p *Pipeline) bind(ch *Channel) {
	for i := range p.ctxs {
		p.ctxs[i].ch, p.ctxs[i].idx = ch, i
	}
}

// head returns the first handler and its context, or nil.
func (p *Pipeline) head() (Handler, *Context) {
	if len(p.handlers) == 0 {
		return nil, nil
	}
	return p.handlers[0], &p.ctxs[0]
}

// Outbound returns the channel's pending output so a codec can append
// replies to it directly, saving a copy; hand the result back with
// SetOutbound. Loop thread only.
func (c *Context) Outbound() []byte { return c.ch.outbound() }

// SetOutbound stores what Outbound returned, with replies appended.
func (c *Context) SetOutbound(b []byte) { c.ch.setOutbound(b) }
