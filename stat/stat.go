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

// JSONEvents returns the event names of Trace Event (Chrome JSON) input, in
// table order (docs/format/stat.md#json-rows). They follow the reference's
// rows in runs that read such input.
func JSONEvents() []string {
	return []string{
		"json_file", "json_gzip", "json_event", "json_trailing_comma", "json_empty_event",
		"json_duplicate_key", "json_string", "json_numeric_string", "json_pid_tid", "json_args",
		"json_thread_time", "json_max_depth", "json_begin", "json_end", "json_complete",
		"json_instant", "json_mark", "json_counter", "json_nestable_begin", "json_nestable_instant",
		"json_nestable_end", "json_async_start", "json_async_step_into", "json_async_step_past",
		"json_async_finish", "json_flow_start", "json_flow_step", "json_flow_end", "json_flow_v2",
		"json_sample", "json_object_new", "json_object_snapshot", "json_object_delete",
		"json_metadata", "json_memory_dump_global", "json_memory_dump_process", "json_clock_sync",
		"json_context_enter", "json_context_leave", "json_linked_id", "json_stack_frames",
		"json_samples", "json_system_trace_events", "json_display_time_unit", "json_top_level",
	}
}

type key struct{ event, typ string }

// Log counts stat events and writes warnings. It is safe for concurrent use.
// Each distinct (event, type) prints at most MaxWarnings lines; the rest are only
// counted, and Summary reports how many were suppressed.
type Log struct {
	mu          sync.Mutex
	counts      map[key]int64
	printed     map[key]int
	w           io.Writer
	json        bool
	MaxWarnings int
}

// UseJSON puts the Trace Event rows (JSONEvents) in the table, right after the
// reference's rows, zero counts included.
func (l *Log) UseJSON() {
	l.mu.Lock()
	l.json = true
	l.mu.Unlock()
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

// Report adds n to the counter of (event, typ) and prints
// "tracestreamer: warning: <where>: <msg>" once for it.
func (l *Log) Report(event, typ string, n int64, where, msg string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	k := key{event, typ}
	l.counts[k] += n
	if l.w == nil {
		return
	}
	l.printed[k]++
	if l.printed[k] <= l.MaxWarnings {
		fmt.Fprintf(l.w, "tracestreamer: warning: %s: %s\n", where, msg)
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

// Rows returns the stat table: the reference's 98 events × 5 types, then the
// Trace Event rows if UseJSON was called, then tracestreamer's own events, then
// any other event that was counted.
func (l *Log) Rows() []Row {
	l.mu.Lock()
	defer l.mu.Unlock()
	events := ReferenceEvents()
	if l.json {
		events = append(events, JSONEvents()...)
	}
	events = append(events, ExtraEvents()...)
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
