// Finishing asynchronous work before the statics it uses are destroyed at exit.
//
// Note [Finishing asynchronous work at exit]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// The lazy device's executor may still run a step when main returns, and that step may use
// statics that exit destroys: a library's globals (oneDNN's primitive cache, constructed when
// the step first opens the library) or statics first constructed by the step itself (oneDNN's
// implementation lists; caches of ours). Exit handlers run in the reverse order of their
// registration, and each such static registers its destructor when it is constructed: after the
// executor's own exit handler, so before that handler waits for the step. The tutorial CNN's
// lazy step with oneDNN convolutions crashed or hung that way now and then when its test ended
// during the step (calling into oneDNN's freed implementation list, or locking its destroyed
// cache). So:
//   - The thread that launches a step waits for the launches when it ends
//     (GraphExecutor::wait_at_launching_thread_exit): std::exit destroys the exiting thread's
//     thread_locals before any static, so when main returns, its last step finishes first.
//   - For a program whose main thread ends while another thread's step runs, the executor's
//     wait is also an exit handler (set_exit_wait), and code that constructs statics on the
//     step's behalf registers it again after them (wait_at_exit: onednn_conv.cpp after opening
//     oneDNN and after each pass kind's first run), so it runs before their destructors.
// Thread safety: both may be called from any thread.
#pragma once

namespace lazygen {

// Sets the wait that exit handlers registered by wait_at_exit() call (the lazy device sets
// its executor's; none is set in a program without one). Registers it at exit as well.
void set_exit_wait(void (*wait)());

// Registers the exit wait to run at exit before the destructors of every static constructed
// so far. Call it once per set of statics (registrations are never released), e.g. with a
// std::once_flag.
void wait_at_exit();

}  // namespace lazygen
