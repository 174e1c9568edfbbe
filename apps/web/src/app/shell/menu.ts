import {
  BarChart3,
  Building2,
  CreditCard,
  Database,
  KeyRound,
  Landmark,
  LayoutDashboard,
  MapPin,
  Receipt,
  Store,
  Tags,
  TrendingUp,
  User,
  Users,
  Wallet,
  type LucideIcon,
} from 'lucide-react';
import { isAdmin, showsRevenueMenu } from '@poi/shared/roles';
import type { User as AppUser } from '@poi/shared/schemas/users';

export interface MenuItem {
  to: string;
  label: string;
  icon: LucideIcon;
}

export interface MenuGroup {
  id: string;
  /** Heading shown above the group; the dashboard group has none. */
  heading?: string;
  items: MenuItem[];
}

/** The side menu of the console specification, with its role rules. */
export function menuGroupsFor(user: AppUser | null): MenuGroup[] {
  const groups: MenuGroup[] = [
    { id: 'dashboard', items: [{ to: '/dashboard', label: 'ダッシュボード', icon: LayoutDashboard }] },
    {
      id: 'api',
      heading: 'API管理',
      items: [
        { to: '/api-keys', label: 'APIキー', icon: KeyRound },
        { to: '/usage', label: '使用量', icon: BarChart3 },
      ],
    },
    {
      id: 'data',
      heading: 'データ管理',
      items: [
        { to: '/datasets', label: 'POIデータセット', icon: Database },
        { to: '/poi', label: 'POI管理', icon: MapPin },
        { to: '/marketplace', label: '公開データセット', icon: Store },
      ],
    },
    {
      id: 'billing',
      heading: '請求・設定',
      items: [
        { to: '/billing', label: '請求・お支払い', icon: Receipt },
        { to: '/payment-method', label: 'お支払い方法', icon: CreditCard },
        { to: '/profile', label: 'プロフィール', icon: User },
      ],
    },
  ];
  if (showsRevenueMenu(user)) {
    groups.push({ id: 'provider', heading: 'データプロバイダー', items: [{ to: '/revenue', label: '収益レポート', icon: TrendingUp }] });
  }
  if (isAdmin(user)) {
    groups.push({
      id: 'admin',
      heading: '管理機能',
      items: [
        { to: '/admin/users', label: 'ユーザー管理', icon: Users },
        { to: '/admin/corporate', label: '法人アカウント', icon: Building2 },
        { to: '/admin/transfers', label: '振込確認', icon: Landmark },
        { to: '/admin/revenue', label: '収益集計', icon: Wallet },
        { to: '/admin/pricing', label: '料金設定', icon: Tags },
      ],
    });
  }
  return groups;
}
