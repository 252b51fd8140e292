package schema

// referenceTables lists every table of trace_streamer 4.3.7's export (its
// tables made with -e, dumped from its own output) in its creation order, with
// its column names, order and declared types. Tables that tracestreamer fills
// are the named fields of Tables; the others are created empty so that SQL and
// UIs written for the reference (SmartPerf-Host queries 88 of them) find them.
func (ts *Tables) referenceTables() []*Table {
	return []*Table{
		ts.Process,
		ts.Thread,
		ts.TraceRange,
		ts.DataType,
		table("symbols", "id INT, funcname TEXT, addr INT"),
		ts.Stat,
		ts.Args,
		ts.Meta,
		ts.TraceConfig,
		ts.DataDict,
		ts.DatasourceClockID,
		ts.ClockSnapshot,
		table("ebpf_callstack", "id INT, callchain_id INT, depth INT, ip TEXT, symbols_id INT, file_path_id INT"),
		table("bio_latency_sample", "id INT, callchain_id INT, type INT, ipid INT, itid INT, start_ts INT, end_ts INT, "+
			"latency_dur INT, tier INT, size INT, block_number TEXT, path_id TEXT, dur_per_4k INT"),
		table("file_system_sample", "id INT, callchain_id INT, type INT, ipid INT, itid INT, start_ts INT, end_ts INT, "+
			"dur INT, return_value TEXT, error_code TEXT, fd INT, file_id INT, size INT, "+
			"first_argument TEXT, second_argument TEXT, third_argument TEXT, fourth_argument TEXT"),
		table("paged_memory_sample", "id INT, callchain_id INT, type INT, ipid INT, start_ts INT, end_ts INT, dur INT, "+
			"size INT, addr TEXT, itid INT"),
		table("native_hook", "id INT, callchain_id INT, ipid INT, itid INT, event_type TEXT, sub_type_id INT, "+
			"start_ts INT, end_ts INT, dur INT, addr INT, heap_size INT, all_heap_size INT, "+
			"current_size_dur INT, last_lib_id INT, last_symbol_id INT"),
		table("native_hook_frame", "id INT, callchain_id INT, depth INT, ip INT, symbol_id INT, file_id INT, offset INT, "+
			"symbol_offset INT, vaddr TEXT"),
		table("native_hook_statistic", "id INT, callchain_id INT, ipid INT, ts INT, type INT, sub_type_id INT, apply_count INT, "+
			"release_count INT, apply_size INT, release_size INT, last_lib_id INT, "+
			"last_symbol_id INT"),
		ts.JSHeapFiles,
		ts.JSHeapEdges,
		ts.JSHeapInfo,
		ts.JSHeapLocation,
		ts.JSHeapNodes,
		ts.JSHeapSample,
		ts.JSHeapString,
		ts.JSHeapTraceFunctionInfo,
		ts.JSHeapTraceNode,
		ts.JSCPUProfilerNode,
		ts.JSCPUProfilerSample,
		ts.JSConfig,
		table("perf_report", "id INT, report_type TEXT, report_value TEXT"),
		table("perf_sample", "id INT, callchain_id INT, timeStamp INT, thread_id INT, event_count INT, "+
			"event_type_id INT, timestamp_trace INT, cpu_id INT, thread_state TEXT"),
		table("perf_callchain", "id INT, callchain_id INT, depth INT, ip INT, vaddr_in_file INT, offset_to_vaddr INT, "+
			"file_id INT, symbol_id INT, name INT, source_file_id INT, line_number INT"),
		table("perf_thread", "id INT, thread_id INT, process_id INT, thread_name TEXT"),
		table("perf_files", "id INT, file_id INT, serial_id INT, symbol TEXT, path TEXT"),
		table("perf_napi_async", "id INT, ts INT, traceid TEXT, cpu_id INT, thread_id INT, process_id INT, "+
			"caller_callchainid INT, callee_callchainid INT, perf_sample_id INT, event_count INT, "+
			"event_type_id INT"),
		ts.Measure,
		table("sys_mem_measure", "type TEXT, ts INT, dur INT, value INT, filter_id INT"),
		ts.ProcessMeasure,
		table("xpower_measure", "type TEXT, ts INT, dur INT, value INT, filter_id INT"),
		table("cpu_measure_filter", "id INT, name TEXT, cpu INT"),
		ts.MeasureFilter,
		ts.ProcessMeasureFilter,
		table("clock_event_filter", "id INT, type TEXT, name TEXT, cpu INT"),
		table("clk_event_filter", "id INT, type TEXT, name TEXT, cpu INT"),
		table("task_pool", "id INT, allocation_task_row INT, execute_task_row INT, return_task_row INT, "+
			"allocation_itid INT, execute_itid INT, return_itid INT, task_id INT, priority INT, "+
			"execute_state INT, return_state INT, timeout_row INT"),
		table("app_startup", "id INT, call_id INT, ipid INT, tid INT, start_time INT, end_time INT, start_name INT, "+
			"packed_name TEXT"),
		table("static_initalize", "id INT, ipid INT, tid INT, call_id INT, start_time INT, end_time INT, so_name TEXT, "+
			"depth INT"),
		table("animation", "id INT, input_time INT, start_point INT, end_point INT, frame_info TEXT, name TEXT"),
		table("dynamic_frame", "id INT, x INT, y INT, width INT, height INT, alpha TEXT, name TEXT, end_time INT"),
		table("device_info", "physical_width INT, physical_height INT, physical_frame_rate INT"),
		table("frame_slice", "id INT, ts INT, vsync INT, ipid INT, itid INT, callstack_id INT, dur INT, src TEXT, "+
			"dst INT, type INT, type_desc TEXT, flag INT, depth INT, frame_no INT"),
		table("frame_maps", "id INT, src_row INT, dst_row INT"),
		table("gpu_slice", "id INT, frame_row INT, dur INT"),
		table("smaps", "id INT, timeStamp INT, start_addr TEXT, end_addr TEXT, dirty INT, swapper INT, "+
			"resident_size INT, pss INT, virtaul_size INT, reside REAL, protection_id INT, "+
			"path_id INT, shared_clean INT, shared_dirty INT, private_clean INT, private_dirty INT, "+
			"swap INT, swap_pss INT, type INT"),
		table("memory_ashmem", "id INT, ts INT, ipid INT, adj INT, fd INT, ashmem_name_id INT, size INT, pss INT, "+
			"ashmem_id INT, time INT, ref_count INT, purged INT, flag INT"),
		table("memory_dma", "id INT, ts INT, ipid INT, fd INT, size INT, ino INT, exp_pid INT, exp_task_comm_id INT, "+
			"buf_name_id INT, exp_name_id INT, flag INT"),
		table("memory_process_gpu", "id INT, ts INT, gpu_name_id INT, all_gpu_size INT, addr TEXT, ipid INT, itid INT, "+
			"used_gpu_size INT"),
		table("memory_window_gpu", "id INT, ts INT, window_name_id INT, window_id INT, module_name_id INT, "+
			"category_name_id INT, size INT, count INT, purgeable_size INT, ipid INT"),
		table("memory_cpu", "id INT, ts INT, total_size INT"),
		table("memory_profile", "id INT, ts INT, channel_id INT, total_size INT"),
		table("memory_rs_image", "id INT, ipid INT, ts INT, mem_size INT, type_id INT, surface_name_id INT"),
		table("app_name", "id INT, app_name INT, app_key INT"),
		table("hisys_event_measure", "id INT, serial INT, ts INT, name_id INT, key_id INT, type INT, int_value REAL, "+
			"string_value TEXT"),
		table("device_state", "id INT, brightness INT, bt_state INT, location INT, wifi INT, stream_default INT, "+
			"voice_call INT, music INT, stream_ring INT, media INT, voice_assistant INT, system INT, "+
			"alarm INT, notification INT, bt_sco INT, enforced_audible INT, stream_dtmf INT, "+
			"stream_tts INT, accessibility INT, recording INT, stream_all INT"),
		table("hisys_all_event", "id INT, domain_id INT, event_name_id INT, ts INT, type INT, time_zone TEXT, pid INT, "+
			"tid INT, uid INT, level TEXT, tag TEXT, event_id TEXT, seq INT, info TEXT, "+
			"contents TEXT"),
		table("xpower_app_detail_display", "id INT, start_time INT, count_1hz INT, count_5hz INT, count_10hz INT, count_15hz INT, "+
			"count_24hz INT, count_30hz INT, count_45hz INT, count_60hz INT, count_90hz INT, "+
			"count_120hz INT, count_180hz INT"),
		table("xpower_app_statistic", "id INT, component_type_id INT, start_time INT, duration INT, energy INT"),
		table("xpower_app_detail_cpu", "id INT, thread_name_id INT, start_time INT, thread_time INT, thread_loads INT, "+
			"thread_energy INT"),
		table("xpower_app_detail_gpu", "id INT, frequency INT, start_time INT, idle_time INT, run_time INT"),
		table("xpower_app_detail_wifi", "id INT, start_time INT, tx_packets INT, rx_packets INT, tx_bytes INT, rx_bytes INT"),
		table("xpower_component_top", "id INT, component_type_id INT, start_time INT, appname INT, background_duration INT, "+
			"background_energy INT, foreground_duration INT, foreground_energy INT, "+
			"screen_off_duration INT, screen_off_energy INT, screen_on_duration INT, "+
			"screen_on_energy INT, camera_id INT, uid INT, load INT, app_usage_duration INT, "+
			"app_usage_energy INT"),
		table("raw", "id INT, ts INT, name TEXT, cpu INT, itid INT"),
		ts.Instant,
		table("sched_slice", "id INT, ts INT, dur INT, ts_end INT, cpu INT, itid INT, ipid INT, end_state TEXT, "+
			"priority INT, arg_setid INT"),
		table("thread_state", "id INT, ts INT, dur INT, cpu INT, itid INT, tid INT, pid INT, state TEXT, "+
			"arg_setid INT"),
		ts.Callstack,
		table("irq", "id INT, ts INT, dur INT, callid INT, cat TEXT, name TEXT, depth INT, cookie INT, "+
			"parent_id INT, argsetid INT, flag TEXT"),
		table("hidump", "id INT, ts INT, fps INT"),
		table("syscall", "syscall_number INT, ts INT, dur INT, itid INT, args TEXT, ret INT"),
		table("log", "seq INT, ts INT, pid INT, tid INT, level TEXT, tag TEXT, context TEXT, origints INT"),
		table("network", "ts INT, dur INT, tx INT, rx INT, tx_speed REAL, rx_speed REAL, packet_in INT, "+
			"packet_in_sec REAL, packet_out INT, packet_out_sec REAL, net_type TEXT"),
		table("sys_event_filter", "id INT, type TEXT, name TEXT"),
		table("diskio", "ts INT, dur INT, rd INT, wr INT, rd_speed REAL, wr_speed REAL, rd_count INT, "+
			"wr_count INT, rd_count_speed REAL, wr_count_speed REAL"),
		table("cpu_usage", "ts INT, dur INT, total_load REAL, user_load REAL, system_load REAL, process_num INT"),
		table("live_process", "ts INT, dur INT, cpu_time INT, process_id INT, process_name TEXT, "+
			"parent_process_id INT, uid INT, user_name TEXT, cpu_usage REAL, pss_info INT, "+
			"thread_num INT, disk_writes INT, disk_reads INT"),
		table("dma_fence", "id INT, ts INT, dur INT, cat TEXT, driver TEXT, timeline TEXT, context INT, seqno INT"),
		table("timerfd_wakeup", "id INT, ts INT, pid INT, tid INT, thread_name INT, interval INT, curr_mono TEXT, "+
			"expire_mono INT"),
	}
}
