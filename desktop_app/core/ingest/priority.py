"""Background work yields the processor: the live index's embedding thread (and the worker
threads its library starts from it) runs below normal priority, so while vectors are computed
on every core the window still repaints and takes input at once.

Only when the processor is contended does this cost the embedding anything. Best effort: where
the operating system refuses, the work runs at normal priority as before.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import sys
import threading

BACKGROUND_NICE = 10  # POSIX niceness added to the window's: well below it, above `nice 19`
_THREAD_PRIORITY_BELOW_NORMAL = -1
_THREAD_PRIORITY_HIGHEST = 2
_BELOW_NORMAL_PRIORITY_CLASS = 0x4000
_QOS_CLASS_UTILITY = 0x11
_QOS_CLASS_USER_INITIATED = 0x19


def lower_this_thread() -> None:
    """Lower the calling thread's priority; threads it starts later inherit it on Linux (the
    embedding library's worker pool)."""
    if sys.platform.startswith("linux"):
        # Linux: niceness is per thread; the process id names the main (window) thread
        with contextlib.suppress(OSError):
            _renice(threading.get_native_id(), below=os.getpid())
    else:
        _set_this_thread(_THREAD_PRIORITY_BELOW_NORMAL, _QOS_CLASS_UTILITY)


def lower_this_process() -> None:
    """Lower a worker process's priority, called first thing in it: its threads, all started
    later inherit it (Linux keeps niceness per thread: a thread started before keeps its own;
    other systems keep it per process)."""
    try:
        if sys.platform == "win32":
            kernel32 = _kernel32()
            kernel32.SetPriorityClass(kernel32.GetCurrentProcess(), _BELOW_NORMAL_PRIORITY_CLASS)
        else:
            os.setpriority(
                os.PRIO_PROCESS, 0, min(19, os.getpriority(os.PRIO_PROCESS, 0) + BACKGROUND_NICE)
            )
    except (OSError, AttributeError):
        pass


def keep_this_thread_at_normal_priority() -> None:
    """The one thread of a lowered worker process that serves the user at once (its queries),
    started before the process lowers itself: on Linux it never was lowered (niceness is per
    thread); on Windows the highest thread priority in a below-normal process is a normal
    thread's; on macOS it asks for user-initiated service."""
    if not sys.platform.startswith("linux"):
        _set_this_thread(_THREAD_PRIORITY_HIGHEST, _QOS_CLASS_USER_INITIATED)


def _set_this_thread(windows_priority: int, macos_qos_class: int) -> None:
    """The calling thread's priority on Windows, or its QoS class on macOS (best effort)."""
    try:
        if sys.platform == "win32":
            kernel32 = _kernel32()
            kernel32.SetThreadPriority(kernel32.GetCurrentThread(), windows_priority)
        elif sys.platform == "darwin":
            system = ctypes.CDLL("/usr/lib/libSystem.dylib")
            system.pthread_set_qos_class_self_np(macos_qos_class, 0)
    except (OSError, AttributeError):
        pass


def _renice(who: int, below: int) -> None:
    """Give thread `who` the niceness of `below` (the main thread) plus BACKGROUND_NICE, unless
    it is already that low: raising a priority back needs privileges."""
    target = min(19, os.getpriority(os.PRIO_PROCESS, below) + BACKGROUND_NICE)
    if os.getpriority(os.PRIO_PROCESS, who) < target:
        os.setpriority(os.PRIO_PROCESS, who, target)


def _kernel32() -> ctypes.CDLL:
    kernel32 = ctypes.WinDLL("kernel32")  # type: ignore[attr-defined,unused-ignore]
    kernel32.GetCurrentThread.restype = ctypes.c_void_p
    kernel32.GetCurrentProcess.restype = ctypes.c_void_p
    kernel32.SetPriorityClass.argtypes = (ctypes.c_void_p, ctypes.c_uint32)
    kernel32.SetThreadPriority.argtypes = (ctypes.c_void_p, ctypes.c_int)
    return kernel32  # type: ignore[no-any-return,unused-ignore]
