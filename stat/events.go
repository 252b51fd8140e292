package stat

// The stat table's events, in table order: the reference's 98, then the
// Trace Event rows, then tracestreamer's own. Each is a constant of type
// Event, so that a misspelt name does not compile; its name and description
// are in events. docs/format/stat.md describes what each type counts.
const (
	// The reference's events (trace_streamer 4.3.7), in its order.
	BinderTransaction Event = iota
	BinderTransactionReceived
	BinderTransactionAllocBuf
	BinderTransactionLock
	BinderTransactionLocked
	BinderTransactionUnlock
	SchedSwitch
	SchedBlockedReason
	TaskRename
	TaskNewtask
	TracingMarkWrite
	Print
	SchedWakeup
	SchedWaking
	CPUIdle
	CPUFrequency
	CPUFrequencyLimits
	SuspendResume
	WorkqueueExecuteStart
	WorkqueueExecuteEnd
	ClockSetRate
	ClockEnable
	ClockDisable
	ClkSetRate
	ClkEnable
	ClkDisable
	SysEnter
	SysExit
	RegulatorSetVoltage
	RegulatorSetVoltageComplete
	RegulatorDisable
	RegulatorDisableComplete
	IPIEntry
	IPIExit
	IRQHandlerEntry
	IRQHandlerExit
	SoftirqRaise
	SoftirqEntry
	SoftirqExit
	OOMScoreAdjUpdate
	SchedWakeupNew
	SchedProcessExit
	SchedProcessFree
	ClockSync
	SignalGenerate
	SignalDeliver
	TraceBlockBioBackmerge
	TraceBlockBioBounce
	TraceBlockBioComplete
	TraceBlockBioFrontmerge
	TraceBblockBioQueue
	TraceBlockBioRemap
	TraceBlockDirtyBuffer
	TraceBlockGetrq
	TraceBlockPlug
	TraceBlockRqComplete
	TraceBlockRqInsert
	TraceBlockRqRemap
	TraceBlockRqIssue
	TraceFFRT
	Memory
	Hilog
	HidumpFPS
	NativeHookMalloc
	NativeHookFree
	NativeHookMmap
	NativeHookMunmap
	NativeHookRecordStatistics
	NativeHookMemtag
	SysMemory
	SysVirtualMemory
	TraceDiskio
	TraceProcess
	TraceCPUUsage
	TraceNetwork
	JSMemory
	TracePerf
	TraceEBPF
	TraceEBPFFileSystem
	TraceEBPFPagedMemory
	TraceEBPFBioLatency
	TraceHisysEvent
	TraceSmaps
	TraceVsync
	TraceOnDoComposition
	TraceFrameQueue
	TraceAshMem
	TraceDMAMem
	TraceGPUProcessMem
	TraceGPUWindowMem
	TraceWindowManagerService
	DMAFenceInit
	DMAFenceDestroy
	DMAFenceEnableSignal
	DMAFenceSignaled
	DMAFence
	TimerfdWakeup
	Other

	// Trace Event input (docs/format/stat.md#json-rows).
	JSONFile
	JSONGzip
	JSONEvent
	JSONTrailingComma
	JSONEmptyEvent
	JSONDuplicateKey
	JSONString
	JSONNumericString
	JSONPidTid
	JSONArgs
	JSONThreadTime
	JSONMaxDepth
	JSONBegin
	JSONEnd
	JSONComplete
	JSONInstant
	JSONMark
	JSONCounter
	JSONNestableBegin
	JSONNestableInstant
	JSONNestableEnd
	JSONAsyncStart
	JSONAsyncStepInto
	JSONAsyncStepPast
	JSONAsyncFinish
	JSONFlowStart
	JSONFlowStep
	JSONFlowEnd
	JSONFlowV2
	JSONSample
	JSONObjectNew
	JSONObjectSnapshot
	JSONObjectDelete
	JSONMetadata
	JSONMemoryDumpGlobal
	JSONMemoryDumpProcess
	JSONClockSync
	JSONContextEnter
	JSONContextLeave
	JSONLinkedID
	JSONStackFrames
	JSONSamples
	JSONSystemTraceEvents
	JSONDisplayTimeUnit
	JSONTopLevel

	// tracestreamer's own.
	HTraceRecord
	JSCPUProfiler
	Rawheap
	// Heap snapshot inconsistencies (docs/format/stat.md#js-heap).
	JSHeapCounts
	JSHeapEdgeCounts
	JSHeapNames
	JSHeapTypes
	JSHeapValues
	JSHeapIDs
	JSHeapStrings

	numEvents
)

// Ranges of events in table order.
const (
	firstJSON = JSONFile
	lastJSON  = JSONTopLevel
	firstOwn  = HTraceRecord
	// From firstOptional on, an event's rows are in the table only in a run
	// that counted something under it.
	firstOptional = Rawheap
)

// events names and describes every Event; the array's length makes the
// compiler check that each has an entry.
var events = [numEvents]struct{ name, desc string }{
	BinderTransaction:           {"binder_transaction", ""},
	BinderTransactionReceived:   {"binder_transaction_received", ""},
	BinderTransactionAllocBuf:   {"binder_transaction_alloc_buf", ""},
	BinderTransactionLock:       {"binder_transaction_lock", ""},
	BinderTransactionLocked:     {"binder_transaction_locked", ""},
	BinderTransactionUnlock:     {"binder_transaction_unlock", ""},
	SchedSwitch:                 {"sched_switch", ""},
	SchedBlockedReason:          {"sched_blocked_reason", ""},
	TaskRename:                  {"task_rename", ""},
	TaskNewtask:                 {"task_newtask", ""},
	TracingMarkWrite:            {"tracing_mark_write", "Trace Event markers (B E X i I R C b n e S T p F), as the reference counts trace marker lines"},
	Print:                       {"print", ""},
	SchedWakeup:                 {"sched_wakeup", ""},
	SchedWaking:                 {"sched_waking", ""},
	CPUIdle:                     {"cpu_idle", ""},
	CPUFrequency:                {"cpu_frequency", ""},
	CPUFrequencyLimits:          {"cpu_frequency_limits", ""},
	SuspendResume:               {"suspend_resume", ""},
	WorkqueueExecuteStart:       {"workqueue_execute_start", ""},
	WorkqueueExecuteEnd:         {"workqueue_execute_end", ""},
	ClockSetRate:                {"clock_set_rate", ""},
	ClockEnable:                 {"clock_enable", ""},
	ClockDisable:                {"clock_disable", ""},
	ClkSetRate:                  {"clk_set_rate", ""},
	ClkEnable:                   {"clk_enable", ""},
	ClkDisable:                  {"clk_disable", ""},
	SysEnter:                    {"sys_enter", ""},
	SysExit:                     {"sys_exit", ""},
	RegulatorSetVoltage:         {"regulator_set_voltage", ""},
	RegulatorSetVoltageComplete: {"regulator_set_voltage_complete", ""},
	RegulatorDisable:            {"regulator_disable", ""},
	RegulatorDisableComplete:    {"regulator_disable_complete", ""},
	IPIEntry:                    {"ipi_entry", ""},
	IPIExit:                     {"ipi_exit", ""},
	IRQHandlerEntry:             {"irq_handler_entry", ""},
	IRQHandlerExit:              {"irq_handler_exit", ""},
	SoftirqRaise:                {"softirq_raise", ""},
	SoftirqEntry:                {"softirq_entry", ""},
	SoftirqExit:                 {"softirq_exit", ""},
	OOMScoreAdjUpdate:           {"oom_score_adj_update", ""},
	SchedWakeupNew:              {"sched_wakeup_new", ""},
	SchedProcessExit:            {"sched_process_exit", ""},
	SchedProcessFree:            {"sched_process_free", ""},
	ClockSync:                   {"trace_event_clock_sync", "htrace inputs whose header clock snapshot was used"},
	SignalGenerate:              {"signal_generate", ""},
	SignalDeliver:               {"signal_deliver", ""},
	TraceBlockBioBackmerge:      {"trace_block_bio_backmerge", ""},
	TraceBlockBioBounce:         {"trace_block_bio_bounce", ""},
	TraceBlockBioComplete:       {"trace_block_bio_complete", ""},
	TraceBlockBioFrontmerge:     {"trace_block_bio_frontmerge", ""},
	TraceBblockBioQueue:         {"trace_bblock_bio_queue", ""},
	TraceBlockBioRemap:          {"trace_block_bio_remap", ""},
	TraceBlockDirtyBuffer:       {"trace_block_dirty_buffer", ""},
	TraceBlockGetrq:             {"trace_block_getrq", ""},
	TraceBlockPlug:              {"trace_block_plug", ""},
	TraceBlockRqComplete:        {"trace_block_rq_complete", ""},
	TraceBlockRqInsert:          {"trace_block_rq_insert", ""},
	TraceBlockRqRemap:           {"trace_block_rq_remap", ""},
	TraceBlockRqIssue:           {"trace_block_rq_issue", ""},
	TraceFFRT:                   {"trace_ffrt", ""},
	Memory:                      {"memory", ""},
	Hilog:                       {"hilog", ""},
	HidumpFPS:                   {"hidump_fps", ""},
	NativeHookMalloc:            {"native_hook_malloc", ""},
	NativeHookFree:              {"native_hook_free", ""},
	NativeHookMmap:              {"native_hook_mmap", ""},
	NativeHookMunmap:            {"native_hook_munmap", ""},
	NativeHookRecordStatistics:  {"native_hook_record_statistics", ""},
	NativeHookMemtag:            {"native_hook_memtag", ""},
	SysMemory:                   {"sys_memory", ""},
	SysVirtualMemory:            {"sys_virtual_memory", ""},
	TraceDiskio:                 {"trace_diskio", ""},
	TraceProcess:                {"trace_process", ""},
	TraceCPUUsage:               {"trace_cpu_usage", ""},
	TraceNetwork:                {"trace_network", ""},
	JSMemory:                    {"trace_js_memory", "heap snapshots and timelines (htrace and standalone files)"},
	TracePerf:                   {"trace_perf", ""},
	TraceEBPF:                   {"trace_ebpf", ""},
	TraceEBPFFileSystem:         {"trace_ebpf_file_system", ""},
	TraceEBPFPagedMemory:        {"trace_ebpf_paged_memory", ""},
	TraceEBPFBioLatency:         {"trace_ebpf_bio_latency", ""},
	TraceHisysEvent:             {"trace_hisys_event", ""},
	TraceSmaps:                  {"trace_smaps", ""},
	TraceVsync:                  {"trace_vsync", ""},
	TraceOnDoComposition:        {"trace_on_do_composition", ""},
	TraceFrameQueue:             {"trace_frame_queue", ""},
	TraceAshMem:                 {"trace_ash_mem", ""},
	TraceDMAMem:                 {"trace_dma_mem", ""},
	TraceGPUProcessMem:          {"trace_gpu_process_mem", ""},
	TraceGPUWindowMem:           {"trace_gpu_window_mem", ""},
	TraceWindowManagerService:   {"trace_window_manager_service", ""},
	DMAFenceInit:                {"dma_fence_init", ""},
	DMAFenceDestroy:             {"dma_fence_destroy", ""},
	DMAFenceEnableSignal:        {"dma_fence_enable_signal", ""},
	DMAFenceSignaled:            {"dma_fence_signaled", ""},
	DMAFence:                    {"dma_fence", ""},
	TimerfdWakeup:               {"timerfd_wakeup", ""},
	Other:                       {"other", "records of hiprofiler plugins not read; sections of other data types"},
	JSONFile:                    {"json_file", "Trace Event files read, and faults of their container"},
	JSONGzip:                    {"json_gzip", "gzip-compressed Trace Event files, and damaged gzip streams"},
	JSONEvent:                   {"json_event", "traceEvents elements: unknown phases, elements that are not objects or do not parse"},
	JSONTrailingComma:           {"json_trailing_comma", "trailing commas tolerated"},
	JSONEmptyEvent:              {"json_empty_event", "{} elements"},
	JSONDuplicateKey:            {"json_duplicate_key", "keys repeated among an element's own members"},
	JSONString:                  {"json_string", "strings with invalid UTF-8 or lone surrogates replaced"},
	JSONNumericString:           {"json_numeric_string", "ts, dur, tts, tdur, pid, tid given as numeric strings"},
	JSONPidTid:                  {"json_pid_tid", "distinct non-numeric pid/tid strings"},
	JSONArgs:                    {"json_args", "args neither an object nor \"__stripped__\""},
	JSONThreadTime:              {"json_thread_time", "unusable tts/tdur ignored"},
	JSONMaxDepth:                {"json_max_depth", "slices dropped on a 512-deep stack"},
	JSONBegin:                   {"json_begin", "B events"},
	JSONEnd:                     {"json_end", "E events"},
	JSONComplete:                {"json_complete", "X events"},
	JSONInstant:                 {"json_instant", "i and I events"},
	JSONMark:                    {"json_mark", "R events"},
	JSONCounter:                 {"json_counter", "C events"},
	JSONNestableBegin:           {"json_nestable_begin", "b events"},
	JSONNestableInstant:         {"json_nestable_instant", "n events"},
	JSONNestableEnd:             {"json_nestable_end", "e events"},
	JSONAsyncStart:              {"json_async_start", "S events"},
	JSONAsyncStepInto:           {"json_async_step_into", "T events"},
	JSONAsyncStepPast:           {"json_async_step_past", "p events"},
	JSONAsyncFinish:             {"json_async_finish", "F events"},
	JSONFlowStart:               {"json_flow_start", "s events"},
	JSONFlowStep:                {"json_flow_step", "t events"},
	JSONFlowEnd:                 {"json_flow_end", "f events"},
	JSONFlowV2:                  {"json_flow_v2", "events with bind_id (flow v2)"},
	JSONSample:                  {"json_sample", "P events"},
	JSONObjectNew:               {"json_object_new", "N events"},
	JSONObjectSnapshot:          {"json_object_snapshot", "O events"},
	JSONObjectDelete:            {"json_object_delete", "D events"},
	JSONMetadata:                {"json_metadata", "M events"},
	JSONMemoryDumpGlobal:        {"json_memory_dump_global", "V events"},
	JSONMemoryDumpProcess:       {"json_memory_dump_process", "v events"},
	JSONClockSync:               {"json_clock_sync", "c events"},
	JSONContextEnter:            {"json_context_enter", "( events"},
	JSONContextLeave:            {"json_context_leave", ") events"},
	JSONLinkedID:                {"json_linked_id", "= events"},
	JSONStackFrames:             {"json_stack_frames", "frames of stackFrames objects; stack/estack not symbolised"},
	JSONSamples:                 {"json_samples", "entries of the top-level samples array"},
	JSONSystemTraceEvents:       {"json_system_trace_events", "files with a systemTraceEvents member"},
	JSONDisplayTimeUnit:         {"json_display_time_unit", "files with a displayTimeUnit member"},
	JSONTopLevel:                {"json_top_level", "unrecognised top-level members stored in trace_config"},
	HTraceRecord:                {"htrace_record", "faults of the .htrace container: cut or corrupt records and sections"},
	JSCPUProfiler:               {"trace_js_cpu_profiler", "CPU profiles (htrace and standalone files)"},
	Rawheap:                     {"rawheap", "ArkTS .rawheap dumps and their faults (rows only in a run that read one)"},
	JSHeapCounts:                {"js_heap_counts", "heap files whose node_count, edge_count or trace_function_count is not a count, or not what the file holds"},
	JSHeapEdgeCounts:            {"js_heap_edge_counts", "heap file nodes whose edge counts do not fit the edges the file has"},
	JSHeapNames:                 {"js_heap_names", "heap file node and edge names past the strings array"},
	JSHeapTypes:                 {"js_heap_types", "heap file node and edge types outside the type lists"},
	JSHeapValues:                {"js_heap_values", "heap file values that are negative where they cannot be, or not 64-bit integers"},
	JSHeapIDs:                   {"js_heap_ids", "heap file nodes whose id an earlier node of the file has, given a synthetic id"},
	JSHeapStrings:               {"js_heap_strings", "heap file strings longer than 32 MiB, cut to their first 32 MiB"},
}
