import { toast } from 'react-toastify';
import { messages } from '@poi/shared/messages';
import type { Poi } from '@poi/shared/schemas/pois';
import { ConfirmDialog } from '../../../components/ui/confirm-dialog';
import { getErrorMessage } from '../../../lib/api-client';
import { useRemovePoi } from '../api/pois-api';

/** Confirms and deletes one POI; the spec's toasts on success and failure (': ' and the message). */
export function PoiDeleteDialog({ poi, onDone, onDeleted }: { poi: Poi; onDone: () => void; onDeleted?: () => void }) {
  const remove = useRemovePoi();
  const onConfirm = async () => {
    try {
      await remove.mutateAsync(poi.poi_id);
      toast.success(messages.poiDeleted);
      onDeleted?.();
    } catch (error) {
      toast.error(`${messages.poiDeleteFailed}: ${getErrorMessage(error, messages.poiDeleteFailed)}`);
    } finally {
      onDone();
    }
  };
  return (
    <ConfirmDialog
      title="POIを削除"
      message={`「${poi.name}」を削除します。この操作は取り消せません。`}
      confirmLabel="削除する"
      busy={remove.isPending}
      onConfirm={() => void onConfirm()}
      onCancel={onDone}
    />
  );
}
