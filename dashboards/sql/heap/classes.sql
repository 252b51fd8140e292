-- Classes of the last heap file by retained size (DevTools' summary columns).
SELECT constructor, objects, shallow_size, retained_size, distance
FROM js_heap_class_summary
WHERE file_id = (SELECT max(id) FROM js_heap_files)
LIMIT 20
