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
CREATE TABLE trace_range(
  start_ts INT,
  end_ts INT
);
CREATE TABLE data_type(
  id INT,
  typeId INT,
  "desc" TEXT
);
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
CREATE TABLE meta(
  name TEXT,
  value TEXT
);
CREATE TABLE trace_config(
  id INT,
  trace_source TEXT,
  "key" TEXT,
  value TEXT
);
CREATE TABLE data_dict(
  id INT,
  data TEXT
);
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
CREATE TABLE instant(
  ts INT,
  name TEXT,
  ref INT,
  wakeup_from INT,
  ref_type TEXT,
  value REAL
);
CREATE TABLE measure(
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
CREATE TABLE js_heap_node_stats(
  file_id INT,
  node_index INT,
  id INT,
  dominator_id INT,
  retained_size INT,
  distance INT,
  shallow_size INT,
  class_id INT
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
CREATE VIEW args_view AS
SELECT A.argset, V2.data AS keyName, A.id, D.desc,
  (CASE WHEN A.datatype = 1 THEN V.data ELSE A.value END) AS strValue
FROM args AS A
LEFT JOIN data_type AS D ON D.typeId = A.datatype
LEFT JOIN data_dict AS V ON V.id = A.value
LEFT JOIN data_dict AS V2 ON V2.id = A.key;
CREATE VIEW js_cpu_profiler_function AS
SELECT t.profile_id, f.data AS name, u.data AS url, n.line_number AS line,
  sum(t.self_time) AS self_time, sum(CASE WHEN t.outermost THEN t.total_time ELSE 0 END) AS total_time,
  sum(t.self_samples) AS samples, count(*) AS nodes
FROM js_cpu_profiler_node_time t
JOIN js_cpu_profiler_node n ON n.rowid = t.node_rowid
JOIN data_dict f ON f.id = n.function_index
JOIN data_dict u ON u.id = n.url_index
GROUP BY t.profile_id, f.data, u.data, n.line_number;
CREATE VIEW js_heap_class_summary AS
SELECT file_id, name AS constructor, min_distance AS distance, count AS objects,
  shallow_size, retained_size
FROM js_heap_class WHERE count > 0 ORDER BY file_id, retained_size DESC;
