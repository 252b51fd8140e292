CREATE TABLE process(
  id INT,
  ipid INT,
  pid INT,
  name TEXT,
  start_ts INT,
  switch_count INT,
  thread_count INT,
  slice_count INT,
  mem_count INT
);
CREATE TABLE thread(
  id INT,
  itid INT,
  tid INT,
  name TEXT,
  start_ts INT,
  end_ts INT,
  ipid INT,
  is_main_thread INT,
  switch_count INT
);
CREATE TABLE trace_range(start_ts INT,end_ts INT);
CREATE TABLE data_type(id INT,typeId INT,"desc" TEXT);
CREATE TABLE symbols(id INT,funcname TEXT,addr INT);
CREATE TABLE stat(
  event_name TEXT,
  stat_type TEXT,
  count INT,
  serverity TEXT,
  source TEXT
);
CREATE TABLE args(
  id INT,
  "key" INT,
  datatype INT,
  value INT,
  argset INT
);
CREATE TABLE meta(name TEXT,value TEXT);
CREATE TABLE trace_config(
  id INT,
  trace_source TEXT,
  "key" TEXT,
  value TEXT
);
CREATE TABLE data_dict(id INT,data TEXT);
CREATE TABLE datasource_clockid(
  id INT,
  data_source_name TEXT,
  clock_id INT
);
CREATE TABLE clock_snapshot(
  id INT,
  clock_id INT,
  ts INT,
  clock_name TEXT
);
CREATE TABLE ebpf_callstack(
  id INT,
  callchain_id INT,
  depth INT,
  ip TEXT,
  symbols_id INT,
  file_path_id INT
);
CREATE TABLE bio_latency_sample(
  id INT,
  callchain_id INT,
  type INT,
  ipid INT,
  itid INT,
  start_ts INT,
  end_ts INT,
  latency_dur INT,
  tier INT,
  size INT,
  block_number TEXT,
  path_id TEXT,
  dur_per_4k INT
);
CREATE TABLE file_system_sample(
  id INT,
  callchain_id INT,
  type INT,
  ipid INT,
  itid INT,
  start_ts INT,
  end_ts INT,
  dur INT,
  return_value TEXT,
  error_code TEXT,
  fd INT,
  file_id INT,
  size INT,
  first_argument TEXT,
  second_argument TEXT,
  third_argument TEXT,
  fourth_argument TEXT
);
CREATE TABLE paged_memory_sample(
  id INT,
  callchain_id INT,
  type INT,
  ipid INT,
  start_ts INT,
  end_ts INT,
  dur INT,
  size INT,
  addr TEXT,
  itid INT
);
CREATE TABLE native_hook(
  id INT,
  callchain_id INT,
  ipid INT,
  itid INT,
  event_type TEXT,
  sub_type_id INT,
  start_ts INT,
  end_ts INT,
  dur INT,
  addr INT,
  heap_size INT,
  all_heap_size INT,
  current_size_dur INT,
  last_lib_id INT,
  last_symbol_id INT
);
CREATE TABLE native_hook_frame(
  id INT,
  callchain_id INT,
  depth INT,
  ip INT,
  symbol_id INT,
  file_id INT,
  "offset" INT,
  symbol_offset INT,
  vaddr TEXT
);
CREATE TABLE native_hook_statistic(
  id INT,
  callchain_id INT,
  ipid INT,
  ts INT,
  type INT,
  sub_type_id INT,
  apply_count INT,
  release_count INT,
  apply_size INT,
  release_size INT,
  last_lib_id INT,
  last_symbol_id INT
);
CREATE TABLE js_heap_files(
  id INT,
  file_name TEXT,
  start_time INT,
  end_time INT,
  self_size INT
);
CREATE TABLE js_heap_edges(
  file_id INT,
  edge_index INT,
  type INT,
  name_or_index INT,
  to_node INT,
  from_node_id INT,
  to_node_id INT
);
CREATE TABLE js_heap_info(
  file_id INT,
  "key" TEXT,
  type INT,
  int_value INT,
  str_value TEXT
);
CREATE TABLE js_heap_location(
  file_id INT,
  object_index INT,
  script_id INT,
  line INT,
  "column" INT
);
CREATE TABLE js_heap_nodes(
  file_id INT,
  node_index INT,
  type INT,
  name INT,
  id INT,
  self_size INT,
  edge_count INT,
  trace_node_id INT,
  detachedness INT
);
CREATE TABLE js_heap_sample(
  file_id INT,
  timestamp_us INT,
  last_assigned_id INT
);
CREATE TABLE js_heap_string(
  file_id INT,
  file_index INT,
  string TEXT
);
CREATE TABLE js_heap_trace_function_info(
  file_id INT,
  function_index INT,
  function_id INT,
  name INT,
  script_name INT,
  script_id INT,
  line INT,
  "column" INT
);
CREATE TABLE js_heap_trace_node(
  file_id INT,
  id INT,
  function_info_index INT,
  count INT,
  size INT,
  parent_id INT
);
CREATE TABLE js_cpu_profiler_node(
  function_id INT,
  function_index INT,
  script_id TEXT,
  url_index INT,
  line_number INT,
  column_number INT,
  hit_count INT,
  children INT,
  parent_id INT
);
CREATE TABLE js_cpu_profiler_sample(
  id INT,
  function_id INT,
  start_time INT,
  end_time INT,
  dur INT
);
CREATE TABLE js_config(
  pid INT,
  type INT,
  interval INT,
  capture_numeric_value INT,
  trace_allocation INT,
  enable_cpu_profiler INT,
  cpu_profiler_interval INT
);
CREATE TABLE perf_report(
  id INT,
  report_type TEXT,
  report_value TEXT
);
CREATE TABLE perf_sample(
  id INT,
  callchain_id INT,
  timeStamp INT,
  thread_id INT,
  event_count INT,
  event_type_id INT,
  timestamp_trace INT,
  cpu_id INT,
  thread_state TEXT
);
CREATE TABLE perf_callchain(
  id INT,
  callchain_id INT,
  depth INT,
  ip INT,
  vaddr_in_file INT,
  offset_to_vaddr INT,
  file_id INT,
  symbol_id INT,
  name INT,
  source_file_id INT,
  line_number INT
);
CREATE TABLE perf_thread(
  id INT,
  thread_id INT,
  process_id INT,
  thread_name TEXT
);
CREATE TABLE perf_files(
  id INT,
  file_id INT,
  serial_id INT,
  symbol TEXT,
  path TEXT
);
CREATE TABLE perf_napi_async(
  id INT,
  ts INT,
  traceid TEXT,
  cpu_id INT,
  thread_id INT,
  process_id INT,
  caller_callchainid INT,
  callee_callchainid INT,
  perf_sample_id INT,
  event_count INT,
  event_type_id INT
);
CREATE TABLE measure(
  type TEXT,
  ts INT,
  dur INT,
  value INT,
  filter_id INT
);
CREATE TABLE sys_mem_measure(
  type TEXT,
  ts INT,
  dur INT,
  value INT,
  filter_id INT
);
CREATE TABLE process_measure(
  type TEXT,
  ts INT,
  dur INT,
  value INT,
  filter_id INT
);
CREATE TABLE xpower_measure(
  type TEXT,
  ts INT,
  dur INT,
  value INT,
  filter_id INT
);
CREATE TABLE cpu_measure_filter(
  id INT,
  name TEXT,
  cpu INT
);
CREATE TABLE measure_filter(
  id INT,
  type TEXT,
  name TEXT,
  source_arg_set_id INT
);
CREATE TABLE process_measure_filter(
  id INT,
  name TEXT,
  ipid INT
);
CREATE TABLE clock_event_filter(
  id INT,
  type TEXT,
  name TEXT,
  cpu INT
);
CREATE TABLE clk_event_filter(
  id INT,
  type TEXT,
  name TEXT,
  cpu INT
);
CREATE TABLE task_pool(
  id INT,
  allocation_task_row INT,
  execute_task_row INT,
  return_task_row INT,
  allocation_itid INT,
  execute_itid INT,
  return_itid INT,
  task_id INT,
  priority INT,
  execute_state INT,
  return_state INT,
  timeout_row INT
);
CREATE TABLE app_startup(
  id INT,
  call_id INT,
  ipid INT,
  tid INT,
  start_time INT,
  end_time INT,
  start_name INT,
  packed_name TEXT
);
CREATE TABLE static_initalize(
  id INT,
  ipid INT,
  tid INT,
  call_id INT,
  start_time INT,
  end_time INT,
  so_name TEXT,
  depth INT
);
CREATE TABLE animation(
  id INT,
  input_time INT,
  start_point INT,
  end_point INT,
  frame_info TEXT,
  name TEXT
);
CREATE TABLE dynamic_frame(
  id INT,
  x INT,
  y INT,
  width INT,
  height INT,
  alpha TEXT,
  name TEXT,
  end_time INT
);
CREATE TABLE device_info(
  physical_width INT,
  physical_height INT,
  physical_frame_rate INT
);
CREATE TABLE frame_slice(
  id INT,
  ts INT,
  vsync INT,
  ipid INT,
  itid INT,
  callstack_id INT,
  dur INT,
  src TEXT,
  dst INT,
  type INT,
  type_desc TEXT,
  flag INT,
  depth INT,
  frame_no INT
);
CREATE TABLE frame_maps(id INT,src_row INT,dst_row INT);
CREATE TABLE gpu_slice(id INT,frame_row INT,dur INT);
CREATE TABLE smaps(
  id INT,
  timeStamp INT,
  start_addr TEXT,
  end_addr TEXT,
  dirty INT,
  swapper INT,
  resident_size INT,
  pss INT,
  virtaul_size INT,
  reside REAL,
  protection_id INT,
  path_id INT,
  shared_clean INT,
  shared_dirty INT,
  private_clean INT,
  private_dirty INT,
  swap INT,
  swap_pss INT,
  type INT
);
CREATE TABLE memory_ashmem(
  id INT,
  ts INT,
  ipid INT,
  adj INT,
  fd INT,
  ashmem_name_id INT,
  size INT,
  pss INT,
  ashmem_id INT,
  time INT,
  ref_count INT,
  purged INT,
  flag INT
);
CREATE TABLE memory_dma(
  id INT,
  ts INT,
  ipid INT,
  fd INT,
  size INT,
  ino INT,
  exp_pid INT,
  exp_task_comm_id INT,
  buf_name_id INT,
  exp_name_id INT,
  flag INT
);
CREATE TABLE memory_process_gpu(
  id INT,
  ts INT,
  gpu_name_id INT,
  all_gpu_size INT,
  addr TEXT,
  ipid INT,
  itid INT,
  used_gpu_size INT
);
CREATE TABLE memory_window_gpu(
  id INT,
  ts INT,
  window_name_id INT,
  window_id INT,
  module_name_id INT,
  category_name_id INT,
  size INT,
  count INT,
  purgeable_size INT,
  ipid INT
);
CREATE TABLE memory_cpu(id INT,ts INT,total_size INT);
CREATE TABLE memory_profile(
  id INT,
  ts INT,
  channel_id INT,
  total_size INT
);
CREATE TABLE memory_rs_image(
  id INT,
  ipid INT,
  ts INT,
  mem_size INT,
  type_id INT,
  surface_name_id INT
);
CREATE TABLE app_name(id INT,app_name INT,app_key INT);
CREATE TABLE hisys_event_measure(
  id INT,
  serial INT,
  ts INT,
  name_id INT,
  key_id INT,
  type INT,
  int_value REAL,
  string_value TEXT
);
CREATE TABLE device_state(
  id INT,
  brightness INT,
  bt_state INT,
  location INT,
  wifi INT,
  stream_default INT,
  voice_call INT,
  music INT,
  stream_ring INT,
  media INT,
  voice_assistant INT,
  system INT,
  alarm INT,
  notification INT,
  bt_sco INT,
  enforced_audible INT,
  stream_dtmf INT,
  stream_tts INT,
  accessibility INT,
  recording INT,
  stream_all INT
);
CREATE TABLE hisys_all_event(
  id INT,
  domain_id INT,
  event_name_id INT,
  ts INT,
  type INT,
  time_zone TEXT,
  pid INT,
  tid INT,
  uid INT,
  level TEXT,
  tag TEXT,
  event_id TEXT,
  seq INT,
  info TEXT,
  contents TEXT
);
CREATE TABLE xpower_app_detail_display(
  id INT,
  start_time INT,
  count_1hz INT,
  count_5hz INT,
  count_10hz INT,
  count_15hz INT,
  count_24hz INT,
  count_30hz INT,
  count_45hz INT,
  count_60hz INT,
  count_90hz INT,
  count_120hz INT,
  count_180hz INT
);
CREATE TABLE xpower_app_statistic(
  id INT,
  component_type_id INT,
  start_time INT,
  duration INT,
  energy INT
);
CREATE TABLE xpower_app_detail_cpu(
  id INT,
  thread_name_id INT,
  start_time INT,
  thread_time INT,
  thread_loads INT,
  thread_energy INT
);
CREATE TABLE xpower_app_detail_gpu(
  id INT,
  frequency INT,
  start_time INT,
  idle_time INT,
  run_time INT
);
CREATE TABLE xpower_app_detail_wifi(
  id INT,
  start_time INT,
  tx_packets INT,
  rx_packets INT,
  tx_bytes INT,
  rx_bytes INT
);
CREATE TABLE xpower_component_top(
  id INT,
  component_type_id INT,
  start_time INT,
  appname INT,
  background_duration INT,
  background_energy INT,
  foreground_duration INT,
  foreground_energy INT,
  screen_off_duration INT,
  screen_off_energy INT,
  screen_on_duration INT,
  screen_on_energy INT,
  camera_id INT,
  uid INT,
  load INT,
  app_usage_duration INT,
  app_usage_energy INT
);
CREATE TABLE raw(
  id INT,
  ts INT,
  name TEXT,
  cpu INT,
  itid INT
);
CREATE TABLE instant(
  ts INT,
  name TEXT,
  ref INT,
  wakeup_from INT,
  ref_type TEXT,
  value REAL
);
CREATE TABLE sched_slice(
  id INT,
  ts INT,
  dur INT,
  ts_end INT,
  cpu INT,
  itid INT,
  ipid INT,
  end_state TEXT,
  priority INT,
  arg_setid INT
);
CREATE TABLE thread_state(
  id INT,
  ts INT,
  dur INT,
  cpu INT,
  itid INT,
  tid INT,
  pid INT,
  state TEXT,
  arg_setid INT
);
CREATE TABLE callstack(
  id INT,
  ts INT,
  dur INT,
  callid INT,
  cat TEXT,
  name TEXT,
  depth INT,
  cookie INT,
  parent_id INT,
  argsetid INT,
  chainId TEXT,
  spanId TEXT,
  parentSpanId TEXT,
  flag TEXT,
  trace_level TEXT,
  trace_tag TEXT,
  custom_category TEXT,
  custom_args TEXT,
  child_callid INT
);
CREATE TABLE irq(
  id INT,
  ts INT,
  dur INT,
  callid INT,
  cat TEXT,
  name TEXT,
  depth INT,
  cookie INT,
  parent_id INT,
  argsetid INT,
  flag TEXT
);
CREATE TABLE hidump(id INT,ts INT,fps INT);
CREATE TABLE syscall(
  syscall_number INT,
  ts INT,
  dur INT,
  itid INT,
  args TEXT,
  ret INT
);
CREATE TABLE log(
  seq INT,
  ts INT,
  pid INT,
  tid INT,
  level TEXT,
  tag TEXT,
  context TEXT,
  origints INT
);
CREATE TABLE network(
  ts INT,
  dur INT,
  tx INT,
  rx INT,
  tx_speed REAL,
  rx_speed REAL,
  packet_in INT,
  packet_in_sec REAL,
  packet_out INT,
  packet_out_sec REAL,
  net_type TEXT
);
CREATE TABLE sys_event_filter(id INT,type TEXT,name TEXT);
CREATE TABLE diskio(
  ts INT,
  dur INT,
  rd INT,
  wr INT,
  rd_speed REAL,
  wr_speed REAL,
  rd_count INT,
  wr_count INT,
  rd_count_speed REAL,
  wr_count_speed REAL
);
CREATE TABLE cpu_usage(
  ts INT,
  dur INT,
  total_load REAL,
  user_load REAL,
  system_load REAL,
  process_num INT
);
CREATE TABLE live_process(
  ts INT,
  dur INT,
  cpu_time INT,
  process_id INT,
  process_name TEXT,
  parent_process_id INT,
  uid INT,
  user_name TEXT,
  cpu_usage REAL,
  pss_info INT,
  thread_num INT,
  disk_writes INT,
  disk_reads INT
);
CREATE TABLE dma_fence(
  id INT,
  ts INT,
  dur INT,
  cat TEXT,
  driver TEXT,
  timeline TEXT,
  context INT,
  seqno INT
);
CREATE TABLE timerfd_wakeup(
  id INT,
  ts INT,
  pid INT,
  tid INT,
  thread_name INT,
  interval INT,
  curr_mono TEXT,
  expire_mono INT
);
CREATE VIEW args_view AS select A.argset, V2.data as keyName, A.id, D.desc, (case when A.datatype==1 then V.data else A.value end) as strValue from args as A left join data_type as D on (D.typeId = A.datatype) left join data_dict as V on V.id = A.value left join data_dict as V2 on V2.id = A.key;
CREATE TABLE source(
  id INT,
  path TEXT,
  format TEXT,
  compression TEXT,
  bytes INT,
  sha256 TEXT,
  heap_file_ids TEXT,
  cpu_profile_ids TEXT
);
CREATE TABLE js_cpu_profile(
  id INT,
  source_id INT,
  first_node_rowid INT,
  node_count INT,
  first_sample_id INT,
  sample_count INT,
  start_time INT,
  end_time INT
);
CREATE TABLE js_heap_native_size(
  file_id INT,
  node_index INT,
  native_size INT
);
CREATE TABLE js_heap_node_stats(
  file_id INT,
  node_index INT,
  id INT,
  dominator_id INT,
  retained_size INT,
  distance INT,
  shallow_size INT,
  class_id INT,
  retainer_id INT,
  retainer_edge INT,
  retainer_edge_type INT,
  retainer_edge_name INT
);
CREATE TABLE js_heap_class(
  file_id INT,
  class_id INT,
  name TEXT,
  count INT,
  shallow_size INT,
  retained_size INT,
  min_distance INT
);
CREATE TABLE js_heap_class_diff(
  base_file_id INT,
  file_id INT,
  name TEXT,
  added_count INT,
  removed_count INT,
  count_delta INT,
  added_size INT,
  removed_size INT,
  size_delta INT
);
CREATE TABLE js_cpu_profiler_node_time(
  profile_id INT,
  node_rowid INT,
  function_id INT,
  self_time INT,
  total_time INT,
  self_samples INT,
  outermost INT
);
CREATE TABLE js_heap_leak(
  file_id INT,
  node_index INT,
  id INT,
  type TEXT,
  name TEXT,
  self_size INT,
  retained_size INT,
  cluster_id INT,
  path_length INT,
  baseline_file_id INT,
  target_file_id INT
);
CREATE TABLE js_heap_leak_path(
  file_id INT,
  leak_id INT,
  depth INT,
  node_id INT,
  type TEXT,
  name TEXT,
  class TEXT,
  edge_type TEXT,
  edge_name TEXT
);
CREATE TABLE js_heap_leak_cluster(
  file_id INT,
  cluster_id INT,
  leak_count INT,
  retained_size INT,
  leak_id INT,
  path TEXT
);
CREATE TABLE callstack_extra(
  callstack_id INT,
  thread_ts INT,
  thread_dur INT,
  async_track_id INT,
  async_parent_id INT,
  end_itid INT,
  stack_frame_id INT,
  end_stack_frame_id INT,
  cname TEXT,
  overlap INT
);
CREATE TABLE async_track(
  id INT,
  kind TEXT,
  cat TEXT,
  name TEXT,
  scope TEXT,
  id_kind TEXT,
  raw_id TEXT,
  ipid INT
);
CREATE TABLE instant_extra(
  instant_rowid INT,
  scope TEXT,
  cat TEXT,
  itid INT,
  argsetid INT,
  stack_frame_id INT
);
CREATE TABLE flow(
  id INT,
  version INT,
  slice_out INT,
  slice_in INT,
  cat TEXT,
  name TEXT,
  flow_key TEXT,
  argsetid INT
);
CREATE TABLE flow_event(
  id INT,
  ts INT,
  itid INT,
  phase TEXT,
  cat TEXT,
  name TEXT,
  flow_key TEXT,
  bp TEXT,
  slice_id INT,
  flow_id INT,
  argsetid INT
);
CREATE TABLE object_instance(
  id INT,
  ipid INT,
  scope TEXT,
  id_kind TEXT,
  raw_id TEXT,
  cat TEXT,
  name TEXT,
  create_ts INT,
  create_itid INT,
  delete_ts INT,
  delete_itid INT,
  explicit_create INT
);
CREATE TABLE object_snapshot(
  id INT,
  object_id INT,
  ts INT,
  itid INT,
  cat TEXT,
  name TEXT,
  base_type TEXT,
  argsetid INT
);
CREATE TABLE memory_dump(
  id INT,
  dump_id TEXT,
  kind TEXT,
  ts INT,
  ipid INT,
  itid INT,
  level_of_detail TEXT,
  extra_json TEXT,
  argsetid INT
);
CREATE TABLE memory_dump_value(
  id INT,
  memory_dump_id INT,
  source TEXT,
  path TEXT,
  guid TEXT,
  attr TEXT,
  type TEXT,
  units TEXT,
  int_value INT,
  str_value TEXT
);
CREATE TABLE memory_dump_edge(
  id INT,
  memory_dump_id INT,
  source_guid TEXT,
  target_guid TEXT,
  importance INT,
  type TEXT
);
CREATE TABLE clock_sync_marker(
  id INT,
  sync_id TEXT,
  ts INT,
  issue_ts INT,
  itid INT,
  source TEXT
);
CREATE TABLE context_event(
  id INT,
  ts INT,
  itid INT,
  phase TEXT,
  cat TEXT,
  name TEXT,
  scope TEXT,
  id_kind TEXT,
  raw_id TEXT
);
CREATE TABLE linked_id(
  id INT,
  ts INT,
  itid INT,
  cat TEXT,
  name TEXT,
  scope TEXT,
  id_kind TEXT,
  raw_id TEXT,
  linked_raw_id TEXT
);
CREATE TABLE stack_frame(
  id INT,
  source TEXT,
  ipid INT,
  cpu_profile_id INT,
  frame_key TEXT,
  parent_id INT,
  name TEXT,
  category TEXT,
  url TEXT,
  script_id TEXT,
  line INT,
  "column" INT
);
CREATE TABLE cpu_profile(
  id INT,
  ipid INT,
  itid INT,
  profile_key TEXT,
  start_ts INT
);
CREATE TABLE stack_sample(
  id INT,
  source TEXT,
  cpu_profile_id INT,
  ts INT,
  itid INT,
  cpu INT,
  name TEXT,
  frame_id INT,
  weight INT,
  argsetid INT
);
CREATE TABLE metadata_event(
  id INT,
  ts INT,
  ipid INT,
  itid INT,
  name TEXT,
  argsetid INT
);
CREATE TABLE system_trace_events(
  id INT,
  kind TEXT,
  seq INT,
  data TEXT
);
CREATE VIEW js_cpu_profiler_function AS
SELECT t.profile_id, f.data AS name, u.data AS url, n.line_number AS line,
  sum(t.self_time) AS self_time, sum(CASE WHEN t.outermost THEN t.total_time ELSE 0 END) AS total_time,
  sum(t.self_samples) AS samples, count(*) AS nodes
FROM js_cpu_profiler_node_time t
JOIN js_cpu_profiler_node n ON n.rowid = t.node_rowid
JOIN data_dict f ON f.id = n.function_index
JOIN data_dict u ON u.id = n.url_index
GROUP BY t.profile_id, f.data, u.data, n.line_number;
CREATE VIEW js_heap_retainer AS
SELECT s.file_id, s.id, s.distance, c.name AS class, s.retainer_id, et.str_value AS edge_type,
  CASE WHEN et.str_value IN ('element', 'hidden') THEN CAST(s.retainer_edge_name AS TEXT) ELSE es.string END AS edge_name
FROM js_heap_node_stats s
JOIN js_heap_class c ON c.file_id = s.file_id AND c.class_id = s.class_id
LEFT JOIN (SELECT file_id, row_number() OVER (PARTITION BY file_id ORDER BY rowid) - 1 AS code, str_value
  FROM js_heap_info WHERE key = 'edge_types' AND type = 0) et
  ON et.file_id = s.file_id AND et.code = s.retainer_edge_type
LEFT JOIN js_heap_string es ON es.file_id = s.file_id AND es.file_index = s.retainer_edge_name
  AND et.str_value NOT IN ('element', 'hidden');
CREATE VIEW js_heap_class_summary AS
SELECT file_id, name AS constructor, min_distance AS distance, count AS objects,
  shallow_size, retained_size
FROM js_heap_class WHERE count > 0 ORDER BY file_id, retained_size DESC;
