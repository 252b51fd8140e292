// Package stat counts what a run received, dropped or could not use, in the
// reference's `stat` table layout (event name × stat type), and prints warnings.
package stat

import (
	"fmt"
	"io"
	"sort"
	"sync"
)

// Stat types, in the reference's order.
const (
	Received     = "received"
	DataLost     = "data_lost"
	NotMatch     = "not_match"
	NotSupported = "not_supported"
	InvalidData  = "invalid_data"
)

// Types lists the stat types in table order.
func Types() []string {
	return []string{Received, DataLost, NotMatch, NotSupported, InvalidData}
}

// Severity returns the reference's severity text of a stat type.
func Severity(typ string) string {
	switch typ {
	case Received, NotMatch:
		return "info"
	case NotSupported:
		return "warn"
	}
	return "error"
}

// Event names used by tracestreamer beyond the reference's list (they follow its
// 98 names in the table).
const (
	JSMemory  = "trace_js_memory" // heap snapshots and timelines (reference name)
	Other     = "other"           // unknown or unsupported plugins (reference name)
	ClockSync = "trace_event_clock_sync"
	// HTraceRecord counts container-level problems: truncated or corrupt records.
	HTraceRecord = "htrace_record"
	// JSCPUProfiler counts CPU profiles and their problems.
	JSCPUProfiler = "trace_js_cpu_profiler"
)

// ReferenceEvents returns the reference's 98 event names in table order.
func ReferenceEvents() []string {
	return []string{
		"binder_transaction", "binder_transaction_received", "binder_transaction_alloc_buf",
		"binder_transaction_lock", "binder_transaction_locked", "binder_transaction_unlock",
		"sched_switch", "sched_blocked_reason", "task_rename", "task_newtask",
		"tracing_mark_write", "print", "sched_wakeup", "sched_waking", "cpu_idle",
		"cpu_frequency", "cpu_frequency_limits", "suspend_resume", "workqueue_execute_start",
		"workqueue_execute_end", "clock_set_rate", "clock_enable", "clock_disable",
		"clk_set_rate", "clk_enable", "clk_disable", "sys_enter", "sys_exit",
		"regulator_set_voltage", "regulator_set_voltage_complete", "regulator_disable",
		"regulator_disable_complete", "ipi_entry", "ipi_exit", "irq_handler_entry",
		"irq_handler_exit", "softirq_raise", "softirq_entry", "softirq_exit",
		"oom_score_adj_update", "sched_wakeup_new", "sched_process_exit",
		"sched_process_free", "trace_event_clock_sync", "signal_generate", "signal_deliver",
		"trace_block_bio_backmerge", "trace_block_bio_bounce", "trace_block_bio_complete",
		"trace_block_bio_frontmerge", "trace_bblock_bio_queue", "trace_block_bio_remap",
		"trace_block_dirty_buffer", "trace_block_getrq", "trace_block_plug",
		"trace_block_rq_complete", "trace_block_rq_insert", "trace_block_rq_remap",
		"trace_block_rq_issue", "trace_ffrt", "memory", "hilog", "hidump_fps",
		"native_hook_malloc", "native_hook_free", "native_hook_mmap", "native_hook_munmap",
		"native_hook_record_statistics", "native_hook_memtag", "sys_memory",
		"sys_virtual_memory", "trace_diskio", "trace_process", "trace_cpu_usage",
		"trace_network", "trace_js_memory", "trace_perf", "trace_ebpf",
		"trace_ebpf_file_system", "trace_ebpf_paged_memory", "trace_ebpf_bio_latency",
		"trace_hisys_event", "trace_smaps", "trace_vsync", "trace_on_do_composition",
		"trace_frame_queue", "trace_ash_mem", "trace_dma_mem", "trace_gpu_process_mem",
		"trace_gpu_window_mem", "trace_window_manager_service", "dma_fence_init",
		"dma_fence_destroy", "dma_fence_enable_signal", "dma_fence_signaled", "dma_fence",
		"timerfd_wakeup", "other",
	}
}

// ExtraEvents returns tracestreamer's own event names, which follow the reference's.
func ExtraEvents() []string { return []string{HTraceRecord, JSCPUProfiler} }

type key struct{ event, typ string }

// Log counts stat events and writes warnings. It is safe for concurrent use.
// Each distinct (event, type) prints at most MaxWarnings lines; the rest are only
// counted, and Summary reports how many were suppressed.
type Log struct {
	mu          sync.Mutex
	counts      map[key]int64
	printed     map[key]int
	w           io.Writer
	MaxWarnings int
}

// NewLog returns a Log that prints warnings to w (nil: print nothing).
func NewLog(w io.Writer) *Log {
	return &Log{counts: map[key]int64{}, printed: map[key]int{}, w: w, MaxWarnings: 5}
}

// Add adds n to the counter of (event, typ).
func (l *Log) Add(event, typ string, n int64) {
	l.mu.Lock()
	l.counts[key{event, typ}] += n
	l.mu.Unlock()
}

// Warn counts one (event, typ) and prints "tracestreamer: warning: <where>: <msg>".
func (l *Log) Warn(event, typ, where, format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	k := key{event, typ}
	l.counts[k]++
	if l.w == nil {
		return
	}
	l.printed[k]++
	if l.printed[k] <= l.MaxWarnings {
		fmt.Fprintf(l.w, "tracestreamer: warning: %s: %s\n", where, fmt.Sprintf(format, args...))
	}
}

// Count returns the counter of (event, typ).
func (l *Log) Count(event, typ string) int64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.counts[key{event, typ}]
}

// Problems returns the total of all data_lost, not_match, not_supported and
// invalid_data counters.
func (l *Log) Problems() int64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	var n int64
	for k, c := range l.counts {
		if k.typ != Received {
			n += c
		}
	}
	return n
}

// Summary prints how many warnings were suppressed per kind.
func (l *Log) Summary() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.w == nil {
		return
	}
	for k, n := range l.printed {
		if n > l.MaxWarnings {
			fmt.Fprintf(l.w, "tracestreamer: warning: %d more %s/%s warnings not shown (see table stat)\n",
				n-l.MaxWarnings, k.event, k.typ)
		}
	}
}

// Row is one row of the stat table.
type Row struct {
	Event, Type, Severity string
	Count                 int64
}

// Rows returns the stat table: the reference's 98 events × 5 types, then
// tracestreamer's own events, then any other event that was counted.
func (l *Log) Rows() []Row {
	l.mu.Lock()
	defer l.mu.Unlock()
	events := append(ReferenceEvents(), ExtraEvents()...)
	seen := map[string]bool{}
	for _, e := range events {
		seen[e] = true
	}
	var extra []string
	for k := range l.counts {
		if !seen[k.event] {
			seen[k.event] = true
			extra = append(extra, k.event)
		}
	}
	sort.Strings(extra)
	events = append(events, extra...)
	var out []Row
	for _, e := range events {
		for _, t := range Types() {
			out = append(out, Row{Event: e, Type: t, Severity: Severity(t), Count: l.counts[key{e, t}]})
		}
	}
	return out
}
