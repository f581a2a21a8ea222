-- With --base: the classes that grew the most from the base snapshot to the target, by shallow bytes.
SELECT class, base_count, target_count, delta_count, delta_shallow, delta_retained
FROM diff
WHERE delta_shallow > 0
ORDER BY delta_shallow DESC
LIMIT 20
