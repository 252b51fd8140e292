-- The heap files of the database, with their node counts (from the snapshot header).
SELECT f.id, f.file_name,
  (SELECT int_value FROM js_heap_info i WHERE i.file_id = f.id AND i.key = 'node_count') AS nodes,
  f.self_size
FROM js_heap_files f ORDER BY f.id
